"""tools/chakra-interop without ASTRA-sim (run by ctest as chakra_interop_py): the network it
derives from a system file, the wire-only system it writes, and ASTRA-sim's configuration."""
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "chakra-interop"))
import chakra_interop  # noqa: E402

SYSTEM = os.path.join(ROOT, "arch", "systems", "h200-hgx8.yaml")


class InteropConfig(unittest.TestCase):
    def test_local_network_from_the_system_file(self):
        bandwidth, hop = chakra_interop.local_network(SYSTEM)
        # h200-hgx8.yaml: 18 lanes x 25 GB/s; link 150 ns + switch 250 ns + link 150 ns.
        self.assertAlmostEqual(bandwidth, 18 * 25e9)
        self.assertAlmostEqual(hop, 2 * 150e-9 + 250e-9)

    def test_wire_only_system_drops_the_collective_library_only(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "s.yaml")
            chakra_interop.wire_only_system(SYSTEM, out)
            text = open(out).read()
            self.assertNotIn("collectives:", text)
            self.assertNotIn("custom_all_reduce", text)
            self.assertIn("port_bandwidth: 450 GB/s", text)
            self.assertIn("chip: h200", text)
            self.assertEqual(chakra_interop.local_network(out), chakra_interop.local_network(SYSTEM))

    def test_astra_configuration(self):
        with tempfile.TemporaryDirectory() as d:
            paths = chakra_interop.astra_configs(d, 450e9, 550e-9, 8, {"all_reduce": "direct"},
                                                 roofline=False)
            system = json.load(open(paths["system"]))
            self.assertEqual(system["roofline-enabled"], 0)  # replay duration_micros
            self.assertEqual(system["all-reduce-implementation"], ["direct"])
            self.assertEqual(system["preferred-dataset-splits"], 1)
            network = open(paths["network"]).read()
            # ASTRA-sim's GB/s are 2^30 B/s; its switch charges the latency on each of two hops.
            self.assertIn(f"bandwidth: [ {450e9 / 2**30:.6f} ]", network)
            self.assertIn("latency: [ 275.000 ]", network)
            self.assertIn("npus_count: [ 8 ]", network)


if __name__ == "__main__":
    unittest.main()
