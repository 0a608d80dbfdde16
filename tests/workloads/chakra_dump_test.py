"""tools/chakra_dump.py on hand-encoded Chakra streams (run by ctest as chakra_dump_py)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import chakra_dump  # noqa: E402


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field(number, wire, payload):
    return varint(number << 3 | wire) + payload


def length_delimited(number, body):
    return field(number, 2, varint(len(body)) + body)


def record(message):
    return varint(len(message)) + message


COMM_COLL_NODE, ALL_GATHER, ONE_MB = 7, 2, 1 << 20


def all_gather_example():
    """astra-sim all_gather/16npus_1MB/all_gather.0.et as FORMATS.md decodes it."""
    attrs = [length_delimited(1, b"is_cpu_op") + field(27, 0, varint(0)),
             length_delimited(1, b"comm_type") + field(9, 0, varint(ALL_GATHER)),
             length_delimited(1, b"comm_size") + field(9, 0, varint(ONE_MB))]
    node = field(3, 0, varint(COMM_COLL_NODE)) + b"".join(length_delimited(10, a) for a in attrs)
    return record(length_delimited(1, b"0.0.4")) + record(node)


class ChakraDumpTest(unittest.TestCase):
    def test_reads_the_astra_sim_all_gather_example(self):
        trace = chakra_dump.read_trace(all_gather_example())
        self.assertEqual(trace["version"], "0.0.4")
        self.assertEqual(len(trace["nodes"]), 1)
        node = trace["nodes"][0]
        self.assertEqual(node["type"], "COMM_COLL_NODE")
        self.assertEqual(node["attr"], {"is_cpu_op": False, "comm_type": ALL_GATHER,
                                        "comm_size": ONE_MB})

    def test_bool_list(self):
        dims = length_delimited(1, b"involved_dim") + length_delimited(28, length_delimited(1, b"\x01\x00"))
        data = record(b"") + record(length_delimited(10, dims))
        self.assertEqual(chakra_dump.read_trace(data)["nodes"][0]["attr"]["involved_dim"], [True, False])

    def test_packed_and_unpacked_dependencies(self):
        packed_deps = length_delimited(5, varint(1) + varint(300))
        unpacked = field(4, 0, varint(7))
        data = record(b"") + record(field(1, 0, varint(9)) + packed_deps + unpacked)
        node = chakra_dump.read_trace(data)["nodes"][0]
        self.assertEqual(node["data_deps"], [1, 300])
        self.assertEqual(node["ctrl_deps"], [7])

    def test_every_cut_or_corruption_is_a_trace_error_or_a_trace(self):
        data = all_gather_example()
        metadata_end = len(record(length_delimited(1, b"0.0.4")))
        for cut in range(len(data)):
            if cut == metadata_end:
                self.assertEqual(chakra_dump.read_trace(data[:cut])["nodes"], [])
                continue
            with self.assertRaises(chakra_dump.TraceError):
                chakra_dump.read_trace(data[:cut])
        for i in range(len(data)):
            bad = bytearray(data)
            bad[i] ^= 0xFF
            try:
                chakra_dump.read_trace(bytes(bad))
            except chakra_dump.TraceError as e:
                self.assertIn("record at byte", str(e))


if __name__ == "__main__":
    unittest.main()
