"""The Jalapeño study's pure parts (no scoville runs): the published figures it checks and the
cost-per-token model. tools/jalapeno-study runs the simulations and writes the document."""
