"""The Jalapeño study (tools/jalapeno-study; docs/jalapeno-study.md is what it writes), one
module a part:

- study: the study's definition: workloads, systems and baselines, software, MTP and
  calibration settings, the inverse grid's axes, the sizes of --quick / default / --full;
- variants: the input files it generates (model, chip and system variants, disaggregated
  mappings, Jalapeño's transferred calibration overlay);
- runs: scoville inferencex command lines and the Runner (parallel runs, the run cache);
- experiments: what is run: baselines, ablations, raw peaks, the grid, the checks;
- analysis: the numbers read from the runs' points (peaks, ratios, attribution, grid verdicts);
  InferenceX's frontier is the `pareto` flag scoville wrote, any other one is
  scoville.frontier's;
- figures: the matplotlib figures; document and document_checks: the Markdown report;
- published and cost: the publication's figures and their check, the cost-per-token model;
- command: the command line (parse_args, main).
"""
