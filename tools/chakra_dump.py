#!/usr/bin/env python3
"""Print a Chakra execution trace (.et) as JSON, without protobuf installed.

    tools/chakra_dump.py decode.0.et            # {"version": ..., "metadata": {...}, "nodes": [...]}

A stream is [varint32 length][GlobalMetadata] then [varint32 length][Node]... (uncompressed).
Field numbers follow workloads/trace/chakra/et_def.proto; attributes become {name: value}. Exit
status 2 with the byte offset of the bad record for a truncated or corrupt file.
"""
import json
import struct
import sys

NODE_TYPES = ["INVALID_NODE", "METADATA_NODE", "MEM_LOAD_NODE", "MEM_STORE_NODE", "COMP_NODE",
              "COMM_SEND_NODE", "COMM_RECV_NODE", "COMM_COLL_NODE"]


class TraceError(ValueError):
    pass


def varint(data, pos):
    """(value, next position) of the varint at pos."""
    value, shift = 0, 0
    while True:
        if pos >= len(data):
            raise TraceError("varint cut off by the end of the data")
        if shift > 63:
            raise TraceError("varint longer than 10 bytes")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def fields(data):
    """(field number, wire type, raw value) of each field of one message."""
    pos = 0
    while pos < len(data):
        key, pos = varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(data, pos)
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        else:
            raise TraceError(f"wire type {wire} does not exist")
        if pos > len(data):
            raise TraceError("field runs past the end of its message")
        yield number, wire, value


def signed(value, bits):
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def zigzag(value):
    return (value >> 1) ^ -(value & 1)


# The wire type of each AttributeProto field this reader decodes (et_def.proto).
ATTRIBUTE_WIRE = {1: 2, 3: 1, 5: 5, 7: 0, 9: 0, 11: 0, 13: 0, 15: 0, 17: 0, 19: 5, 21: 1, 23: 5,
                  25: 1, 27: 0, 28: 2, 29: 2}
NODE_WIRE = {1: 0, 2: 2, 3: 0, 4: (0, 2), 5: (0, 2), 7: 0, 10: 2}


def check_wire(number, wire, expected):
    if expected is not None and wire not in (expected if isinstance(expected, tuple) else (expected,)):
        raise TraceError(f"field {number} has wire type {wire}, expected {expected}")


def attribute(data):
    """(name, value) of an AttributeProto; list types other than bool_list come back as hex."""
    name, value = "", None
    for number, wire, raw in fields(data):
        check_wire(number, wire, ATTRIBUTE_WIRE.get(number))
        if number == 1:
            name = raw.decode("utf-8", "replace")
        elif number == 3:
            value = struct.unpack("<d", raw)[0]
        elif number == 5:
            value = struct.unpack("<f", raw)[0]
        elif number == 7:
            value = signed(raw & 0xFFFFFFFF, 32)
        elif number == 9:
            value = signed(raw, 64)
        elif number in (11, 13):
            value = raw
        elif number in (15, 17):
            value = zigzag(raw)
        elif number in (19, 21):
            value = struct.unpack("<I" if number == 19 else "<Q", raw)[0]
        elif number in (23, 25):
            value = struct.unpack("<i" if number == 23 else "<q", raw)[0]
        elif number == 27:
            value = bool(raw)
        elif number == 28:  # BoolList {repeated bool values = 1}
            value = [bool(v) for n, w, r in fields(raw) if n == 1 for v in packed(r, w)]
        elif number == 29:
            value = raw.decode("utf-8", "replace")
        elif number > 2:
            value = raw.hex() if isinstance(raw, bytes) else raw
    return name, value


def packed(raw, wire):
    """Values of a repeated varint field, packed (wire 2) or one per field (wire 0)."""
    if wire == 0:
        return [raw]
    out, pos = [], 0
    while pos < len(raw):
        value, pos = varint(raw, pos)
        out.append(value)
    return out


def node(data):
    out = {"id": 0, "name": "", "type": NODE_TYPES[0], "ctrl_deps": [], "data_deps": [],
           "attr": {}}
    for number, wire, raw in fields(data):
        check_wire(number, wire, NODE_WIRE.get(number))
        if number == 1:
            out["id"] = raw
        elif number == 2:
            out["name"] = raw.decode("utf-8", "replace")
        elif number == 3:
            out["type"] = NODE_TYPES[raw] if raw < len(NODE_TYPES) else raw
        elif number in (4, 5):
            out["ctrl_deps" if number == 4 else "data_deps"] += packed(raw, wire)
        elif number == 7:
            out["duration_micros"] = raw
        elif number == 10:
            name, value = attribute(raw)
            out["attr"][name] = value
    return out


def read_trace(data):
    """The trace as a dict; raises TraceError naming the record and its byte offset."""
    trace = {"version": "", "metadata": {}, "nodes": []}
    pos, index = 0, -1
    while pos < len(data):
        where = "metadata" if index < 0 else f"node[{index}]"
        start = pos
        try:
            length, pos = varint(data, pos)
            if pos + length > len(data):
                raise TraceError(f"record length {length} runs past the end of the file")
            body, pos = data[pos:pos + length], pos + length
            if index < 0:
                for number, wire, raw in fields(body):
                    check_wire(number, wire, {1: 2, 2: 2}.get(number))
                    if number == 1:
                        trace["version"] = raw.decode("utf-8", "replace")
                    elif number == 2:
                        name, value = attribute(raw)
                        trace["metadata"][name] = value
            else:
                trace["nodes"].append(node(body))
        except (TraceError, struct.error) as e:
            raise TraceError(f"{where}: record at byte {start}: {e}") from None
        index += 1
    if index < 0:
        raise TraceError("metadata: record at byte 0: empty file")
    return trace


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        with open(argv[1], "rb") as f:
            trace = read_trace(f.read())
    except OSError as e:
        print(f"{argv[1]}: {e.strerror}", file=sys.stderr)
        return 2
    except TraceError as e:
        print(f"{argv[1]}: {e}", file=sys.stderr)
        return 2
    json.dump(trace, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
