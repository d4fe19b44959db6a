"""The estimates file (``--theory FILE``) and its comparison with measurements.

Part 1 loads rule files and asks them for the theory of launch
configurations; part 2 lists every refusal, each naming the file and line;
part 3 runs the engine on synthetic profiles (built here from metric
dictionaries, as in test_engine_synthetic) and checks the theory columns,
the ``excess-traffic`` and ``no-theory`` findings by hand.

The synthetic GPU has a 1 TFLOP/s FP32 roof and a 100 GB/s DRAM roof.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from ncu_roofline import analyze
from ncu_roofline.analysis import Analysis, TheoryConfig
from ncu_roofline.errors import InputFormatError, InputNotFoundError
from ncu_roofline.theory.estimates import TheoryFile, load_theory_file
from ncu_roofline.theory.families import FAMILIES
from ncu_roofline.theory.ops import OpEstimate
from tests.helpers import profile, spec

REL = 1e-12

#: The issue's minimal example, byte for byte.
MINIMAL = """\
[[kernel]]
match = "upsample"
op = "elementwise"
n = 1024
dtype = "fp32"
"""


def write(tmp_path: Path, text: str, name: str = "theory.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def load(tmp_path: Path, text: str) -> TheoryFile:
    return load_theory_file(write(tmp_path, text))


def find(
    tf: TheoryFile,
    kernel: str,
    nvtx: str | None = None,
    grid: str | None = "(1, 1, 1)",
    block: str | None = "(128, 1, 1)",
) -> tuple[str, OpEstimate] | None:
    """The label of the rule that matches, and its estimate."""
    found = tf.find(kernel, nvtx, grid, block)
    return None if found is None else (found[0].label, found[1])


def refuses(tmp_path: Path, text: str, message: str) -> str:
    """Loading ``text`` fails with InputFormatError starting ``<path>:<message>``."""
    path = write(tmp_path, text)
    with pytest.raises(InputFormatError) as info:
        load_theory_file(path)
    got = str(info.value)
    assert got.startswith(f"{path}:"), got
    assert message in got, got
    return got


# --- 1. Rules ------------------------------------------------------------------------


def test_minimal_example_from_the_issue(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL)
    tf = load_theory_file(path)
    assert tf.path == str(path)
    assert tf.params == {}
    assert len(tf.rules) == 1
    rule = tf.rules[0]
    assert (rule.label, rule.origin, rule.op) == ("rule 1", f"{path}:1", "elementwise")

    found = tf.find("upsample_bilinear2d_out_frame<float>", None, "(4, 1, 1)", "(256, 1, 1)")
    assert found is not None
    assert found[0] is rule
    est = found[1]
    # elementwise, n = 1024 fp32 elements, one input and one output (the
    # defaults), flops_per_element 1 (the default):
    # FLOPs = 1 x 1024 = 1024; reads = 1024 x 4 = 4096; writes = 4096; bytes = 8192.
    assert est.op == "elementwise"
    assert est.flops == 1024.0
    assert est.reads == 4096.0
    assert est.writes == 4096.0
    assert est.bytes == 8192.0
    assert est.ai == 1024 / 8192  # 0.125 FLOP/byte
    assert est.precision == "fp32"
    assert est.label == "elementwise n=1024 fp32"
    assert est.params["inputs"] == 1 and est.params["outputs"] == 1
    assert est.params["flops_per_element"] == 1
    # match is a regex search anywhere in the name; other kernels get nothing.
    assert tf.find("my_upsample", None, None, None) is not None
    assert tf.find("gemm_kernel", None, "(4, 1, 1)", "(256, 1, 1)") is None
    assert tf.find("Upsample", None, None, None) is None  # case-sensitive


def test_params_and_launch_field_expressions(tmp_path: Path) -> None:
    tf = load(
        tmp_path,
        """\
        [params]
        H = 4096
        B = "2 * 4"
        HEADS = 32
        KV = 8

        [[kernel]]
        id = "qkv"
        match = "nvjet|xmma_gemm"
        nvtx = "qkv_proj"
        op = "gemm"
        M = "B"
        N = "(HEADS + 2*KV) * 128"
        K = "H"
        dtype = "bf16"

        [[kernel]]
        id = "by-launch"
        match = "nvjet"
        op = "gemm"
        M = "B"
        N = "grid.x * 128"
        K = "block.x * 16"
        dtype = "bf16"
        """,
    )
    # [params] entries are evaluated in order; B = 2 * 4 = 8.
    assert tf.params == {"H": 4096.0, "B": 8.0, "HEADS": 32.0, "KV": 8.0}

    found = find(tf, "nvjet_tst_192x8_64x4", "model > layers.0 > qkv_proj", "(48, 1, 1)")
    assert found is not None
    label, est = found
    # M = 8, N = (32 + 16) x 128 = 6144, K = 4096:
    # FLOPs = 2 x 8 x 6144 x 4096 = 402,653,184;
    # bytes = (8 x 4096 + 4096 x 6144 + 8 x 6144) x 2 = 25,247,744 x 2 = 50,495,488.
    assert label == "qkv"
    assert (est.params["M"], est.params["N"], est.params["K"]) == (8, 6144, 4096)
    assert est.flops == 402_653_184.0
    assert est.bytes == 50_495_488.0
    assert est.precision == "tensor_bf16"

    found = find(
        tf, "nvjet_tst_192x8_64x4", "model > layers.0 > o_proj", "(32, 1, 1)", "(256, 1, 1)"
    )
    assert found is not None
    label, est = found
    # N = grid.x x 128 = 32 x 128 = 4096; K = block.x x 16 = 256 x 16 = 4096:
    # FLOPs = 2 x 8 x 4096 x 4096 = 268,435,456;
    # bytes = (8 x 4096 + 4096 x 4096 + 8 x 4096) x 2 = 16,842,752 x 2 = 33,685,504.
    assert label == "by-launch"
    assert est.flops == 268_435_456.0
    assert est.bytes == 33_685_504.0
    assert est.label == "gemm M=8 N=4096 K=4096 bf16"
    # No NVTX range at all: the nvtx rule cannot match, the next one does.
    found = find(tf, "nvjet_tst", None, "(32, 1, 1)", "(256, 1, 1)")
    assert found is not None and found[0] == "by-launch"
    # xmma_gemm matches only the first rule, and only inside qkv_proj.
    assert find(tf, "sm90_xmma_gemm_bf16", "qkv_proj", "(1, 1, 1)") is not None
    assert find(tf, "sm90_xmma_gemm_bf16", "o_proj", "(1, 1, 1)") is None


def test_rule_params_table_and_raw_expressions(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        [params]
        H = 1024

        [[kernel]]
        match = "^my_fused_op"
        params = { T = "grid_blocks * block_threads", W = "T * 2" }
        flops = "2 * T * H"
        bytes = "W * H + H * 2"
        precision = "fp16"
        """,
    )
    tf = load_theory_file(path)
    found = tf.find("my_fused_op<half>", None, "(4, 2, 1)", "(32, 4, 1)")
    assert found is not None
    rule, est = found
    # grid_blocks = 4 x 2 x 1 = 8, block_threads = 32 x 4 x 1 = 128: T = 1024;
    # W = T x 2 = 2048 (a rule param may use the ones before it).
    # FLOPs = 2 x 1024 x 1024 = 2,097,152; bytes = 2048 x 1024 + 1024 x 2 = 2,099,200.
    assert est.flops == 2_097_152.0
    assert est.bytes == 2_099_200.0
    assert est.op == "custom"
    assert est.label == "rule 1"
    assert est.precision == "fp16"
    assert math.isnan(est.reads) and math.isnan(est.writes)
    assert est.notes == (f"raw expressions from {path}:4",)
    assert rule.origin == f"{path}:4"
    # Another launch of the same rule: grid (1, 1, 1), block (256, 1, 1): T = 256, W = 512;
    # FLOPs = 2 x 256 x 1024 = 524,288; bytes = 512 x 1024 + 2048 = 526,336.
    found = tf.find("my_fused_op<half>", None, "(1, 1, 1)", "(256, 1, 1)")
    assert found is not None
    assert (found[1].flops, found[1].bytes) == (524_288.0, 526_336.0)
    # ^ anchors: a name with a prefix is not matched.
    assert tf.find("void my_fused_op", None, "(1, 1, 1)", "(256, 1, 1)") is None


def test_raw_rule_with_numbers_and_default_precision(tmp_path: Path) -> None:
    tf = load(
        tmp_path,
        """\
        [[kernel]]
        match = "k"
        flops = 1e6
        bytes = 2048
        """,
    )
    found = find(tf, "k")
    assert found is not None
    est = found[1]
    assert (est.flops, est.bytes, est.precision) == (1e6, 2048.0, "fp32")
    assert est.ai == 1e6 / 2048


def test_when_predicates(tmp_path: Path) -> None:
    tf = load(
        tmp_path,
        """\
        [params]
        LIMIT = 1000

        [[kernel]]
        id = "big"
        match = "reduce"
        when = "grid.x >= 64 and block.x == 256"
        flops = "1"
        bytes = "1"

        [[kernel]]
        id = "many-threads"
        match = "reduce"
        params = { T = "grid.x * block.x" }
        when = "T > LIMIT"
        flops = "T"
        bytes = "T * 4"

        [[kernel]]
        id = "small"
        match = "reduce"
        flops = "2"
        bytes = "2"
        """,
    )

    def label(grid: str, block: str) -> str | None:
        found = find(tf, "reduce_kernel<512>", None, grid, block)
        return None if found is None else found[0]

    assert label("(128, 1, 1)", "(256, 1, 1)") == "big"
    assert label("(64, 1, 1)", "(256, 1, 1)") == "big"  # >= is inclusive
    # grid.x 63 x block.x 256 = 16128 > 1000: not big, but many threads.
    assert label("(63, 1, 1)", "(256, 1, 1)") == "many-threads"
    assert label("(128, 1, 1)", "(128, 1, 1)") == "many-threads"  # block.x != 256
    # 3 x 256 = 768 <= 1000: the fallback.
    assert label("(3, 1, 1)", "(256, 1, 1)") == "small"
    found = find(tf, "reduce_kernel", None, "(8, 1, 1)", "(512, 1, 1)")
    assert found is not None
    # T = 8 x 512 = 4096: FLOPs 4096, bytes 16384.
    assert (found[0], found[1].flops, found[1].bytes) == ("many-threads", 4096.0, 16384.0)


def test_nvtx_grid_and_block_matching(tmp_path: Path) -> None:
    tf = load(
        tmp_path,
        """\
        [[kernel]]
        id = "attn-range"
        match = "gemv"
        nvtx = "attn"
        flops = "1"
        bytes = "1"

        [[kernel]]
        id = "grid-128"
        match = "gemv"
        grid = "(128, 1, 1)"
        flops = "1"
        bytes = "1"

        [[kernel]]
        id = "block-2d"
        match = "gemv"
        block = "(32, 4)"
        flops = "1"
        bytes = "1"

        [[kernel]]
        id = "fallback"
        match = "gemv"
        flops = "1"
        bytes = "1"
        """,
    )

    def label(nvtx: str | None, grid: str | None, block: str | None) -> str | None:
        found = find(tf, "gemv_kernel", nvtx, grid, block)
        return None if found is None else found[0]

    # nvtx is a regex searched in the joined range path.
    assert label("decode > layers.3 > attn", "(1, 1, 1)", "(64, 1, 1)") == "attn-range"
    assert label("mlp", "(128, 1, 1)", "(64, 1, 1)") == "grid-128"
    assert label(None, "(128, 1, 1)", "(64, 1, 1)") == "grid-128"
    assert label(None, "(128,1,1)", "(64, 1, 1)") == "grid-128"  # spacing does not matter
    assert label(None, "(128, 2, 1)", "(64, 1, 1)") == "fallback"
    # "(32, 4)" means (32, 4, 1).
    assert label(None, "(2, 1, 1)", "(32, 4, 1)") == "block-2d"
    assert label(None, "(2, 1, 1)", "(32, 4, 2)") == "fallback"
    # A launch without grid or block matches only rules that do not ask for them.
    assert label(None, None, None) == "fallback"
    assert find(tf, "gemm_kernel", "attn") is None


def test_first_matching_rule_wins(tmp_path: Path) -> None:
    tf = load(
        tmp_path,
        """\
        [[kernel]]
        id = "general"
        match = "gemm"
        flops = "10"
        bytes = "20"

        [[kernel]]
        id = "specific"
        match = "gemm_bf16"
        flops = "30"
        bytes = "40"
        """,
    )
    found = find(tf, "sm80_gemm_bf16_128x128")
    assert found is not None
    assert (found[0], found[1].flops, found[1].bytes) == ("general", 10.0, 20.0)
    assert [r.label for r in tf.rules] == ["general", "specific"]


def test_op_names_and_values_as_in_the_library(tmp_path: Path) -> None:
    tf = load(
        tmp_path,
        """\
        [[kernel]]
        match = "mm"
        op = "Matmul"
        M = 2
        N = "3"
        K = 4
        dtype = "float16"

        [[kernel]]
        match = "cast"
        op = "pointwise"
        n = 100
        flops_per_element = 0
        out = "bf16"
        dtype = "fp32"
        """,
    )
    found = find(tf, "mm_kernel")
    assert found is not None
    # gemm M=2 N=3 K=4 fp16: FLOPs 2 x 2 x 3 x 4 = 48; bytes (2x4 + 4x3 + 2x3) x 2 = 52.
    assert found[1].op == "gemm"
    assert (found[1].flops, found[1].bytes) == (48.0, 52.0)
    found = find(tf, "cast_kernel")
    assert found is not None
    # elementwise cast: 0 FLOPs; reads 100 x 4 = 400, writes 100 x 2 = 200.
    assert found[1].op == "elementwise"
    assert (found[1].flops, found[1].reads, found[1].writes) == (0.0, 400.0, 200.0)


def test_op_parameter_aliases_are_accepted(tmp_path: Path) -> None:
    # The op library accepts parameter aliases (T for tokens, I for intermediate);
    # a rule should take the same names as estimate() and --op do.
    tf = load(
        tmp_path,
        """\
        [[kernel]]
        match = "act_and_mul"
        op = "act_and_mul"
        T = 1
        I = 14336
        """,
    )
    found = find(tf, "act_and_mul_kernel")
    assert found is not None
    # act_and_mul tokens=1 intermediate=14336 bf16: reads 2 x 14336 x 2 = 57,344,
    # writes 14336 x 2 = 28,672: 86,016 bytes; 5 FLOPs x 14336 = 71,680 (silu).
    assert (found[1].flops, found[1].bytes) == (71_680.0, 86_016.0)


# --- 2. Errors name the file and the line ----------------------------------------------


def test_unknown_op(tmp_path: Path) -> None:
    got = refuses(
        tmp_path,
        """\
        [params]
        H = 1

        [[kernel]]
        match = "a"
        op = "nosuchop"
        """,
        "6: [[kernel]] 'rule 1': op: unknown op 'nosuchop'; known ops: ",
    )
    assert "elementwise" in got and "gemm" in got


def test_unknown_op_in_a_later_rule_names_that_rule(tmp_path: Path) -> None:
    refuses(
        tmp_path,
        """\
        [[kernel]]
        match = "a"
        op = "elementwise"
        n = 4

        [[kernel]]
        id = "second"
        match = "b"
        op = "gemmm"
        """,
        "9: [[kernel]] 'second': op: unknown op 'gemmm'",
    )


def test_unknown_op_parameter(tmp_path: Path) -> None:
    refuses(
        tmp_path,
        """\
        [[kernel]]
        match = "a"
        op = "elementwise"
        n = 4
        foo = 3
        """,
        "5: [[kernel]] 'rule 1': foo: not a parameter of op 'elementwise'; "
        "its parameters are n, inputs, outputs, flops_per_element, dtype, out",
    )


def test_bad_regex(tmp_path: Path) -> None:
    refuses(
        tmp_path,
        """\
        [[kernel]]
        op = "elementwise"
        n = 4
        match = "(unclosed"
        """,
        "4: [[kernel]] 'rule 1': match: not a valid regular expression (missing ), "
        "unterminated subpattern",
    )
    refuses(
        tmp_path,
        """\
        [[kernel]]
        match = "a"
        nvtx = "[z-a]"
        flops = "1"
        bytes = "1"
        """,
        "3: [[kernel]] 'rule 1': nvtx: not a valid regular expression (bad character range",
    )
    refuses(
        tmp_path,
        """\
        [[kernel]]
        match = ""
        flops = "1"
        bytes = "1"
        """,
        "2: [[kernel]] 'rule 1': match: expected a regular expression string",
    )


def test_missing_match(tmp_path: Path) -> None:
    refuses(
        tmp_path,
        """\
        [params]
        H = 1

        [[kernel]]
        op = "elementwise"
        n = 4
        """,
        "4: [[kernel]] 'rule 1': missing 'match' (a regex on the kernel name)",
    )


def test_op_and_flops_together(tmp_path: Path) -> None:
    refuses(
        tmp_path,
        """\
        [[kernel]]
        match = "a"
        flops = "1"
        bytes = "1"

        [[kernel]]
        id = "both"
        match = "b"
        op = "elementwise"
        n = 4
        flops = "1"
        """,
        "6: [[kernel]] 'both': give either 'op' or 'flops'/'bytes', not both",
    )


def test_flops_without_bytes_and_neither(tmp_path: Path) -> None:
    body = """\
        [params]
        H = 1

        [[kernel]]
        match = "a"
        {line}
        """
    for line in ('flops = "H"', 'bytes = "H"'):
        refuses(
            tmp_path,
            body.format(line=line),
            "4: [[kernel]] 'rule 1': 'flops' and 'bytes' go together",
        )
    refuses(
        tmp_path,
        body.format(line='id = "nothing"'),
        "4: [[kernel]] 'nothing': give an 'op' or both 'flops' and 'bytes'",
    )


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        # In a raw expression.
        (
            'flops = "H * 2"\nbytes = "H * Q"',
            "8: [[kernel]] 'rule 1': bytes: unknown name Q (known:",
        ),
        # In an op parameter.
        ('op = "elementwise"\nn = "H * N"', "8: [[kernel]] 'rule 1': n: unknown name N"),
        # In a predicate: grid.w is no launch field.
        (
            'when = "grid.w > 1"\nflops = "1"\nbytes = "1"',
            "7: [[kernel]] 'rule 1': when: unknown name grid.w",
        ),
        # In the rule's params: a later param is not known yet.
        (
            'params = { A = "B * 2", B = "1" }\nflops = "A"\nbytes = "A"',
            "7: [[kernel]] 'rule 1': params.A: unknown name B",
        ),
        # Several unknown names are all listed.
        ('flops = "x + y"\nbytes = "1"', "7: [[kernel]] 'rule 1': flops: unknown names x, y"),
    ],
)
def test_unknown_name_in_an_expression(tmp_path: Path, rule: str, message: str) -> None:
    got = refuses(
        tmp_path,
        '[params]\nH = 4096\nG = "H * 2"\n\n[[kernel]]\nmatch = "a"\n' + rule + "\n",
        message,
    )
    assert "grid.x, grid.y, grid.z, block.x, block.y, block.z, grid_blocks, block_threads" in got


def test_bad_expression_syntax_and_refused_nodes(tmp_path: Path) -> None:
    refuses(
        tmp_path,
        '[[kernel]]\nmatch = "a"\nflops = "1 +"\nbytes = "1"\n',
        "3: [[kernel]] 'rule 1': flops: syntax error in '1 +'",
    )
    refuses(
        tmp_path,
        '[[kernel]]\nmatch = "a"\nflops = "1"\nbytes = "__import__(\'os\')"\n',
        "4: [[kernel]] 'rule 1': bytes: only these functions can be called",
    )
    refuses(
        tmp_path,
        '[[kernel]]\nmatch = "a"\nflops = true\nbytes = "1"\n',
        "3: [[kernel]] 'rule 1': flops: expected a number or an expression, got true",
    )


def test_bad_params_table(tmp_path: Path) -> None:
    refuses(
        tmp_path,
        '[params]\nA = 1\nB = "A * C"\n\n[[kernel]]\nmatch = "a"\nflops = "1"\nbytes = "1"\n',
        "3: params.B: unknown name C",
    )
    refuses(
        tmp_path,
        '[params]\nA = "1 / 0"\n\n[[kernel]]\nmatch = "a"\nflops = "1"\nbytes = "1"\n',
        "2: params.A: division by zero",
    )
    refuses(tmp_path, 'params = 3\n\n[[kernel]]\nmatch = "a"\n', "1: params must be a table")


def test_quoted_params_key_names_its_line(tmp_path: Path) -> None:
    # A quoted key is valid TOML; the bad name must still be found on line 2.
    refuses(
        tmp_path,
        '[params]\n"2x" = 1\n\n[[kernel]]\nmatch = "a"\nflops = "1"\nbytes = "1"\n',
        "2: params.2x: parameter names are letters, digits and _",
    )


def test_params_line_is_found_in_the_params_table(tmp_path: Path) -> None:
    # A params entry whose name is also a rule key written earlier in the file:
    # the error must point at the [params] entry (line 8), not at the rule's "n =".
    refuses(
        tmp_path,
        """\
        [[kernel]]
        match = "a"
        op = "elementwise"
        n = "H"

        [params]
        H = 4
        n = "1 +"
        """,
        "8: params.n: syntax error",
    )


def test_bad_toml(tmp_path: Path) -> None:
    path = write(tmp_path, '[[kernel]]\nmatch = "a"\nop = \n')
    with pytest.raises(InputFormatError) as info:
        load_theory_file(path)
    got = str(info.value)
    # tomllib reports the position as "(at line 3, column 6)".
    assert got.startswith(f"{path}: not valid TOML: ")
    assert "line 3" in got


def test_unknown_top_level_table(tmp_path: Path) -> None:
    refuses(
        tmp_path,
        '[params]\nH = 1\n\n[kernels]\nmatch = "a"\n',
        "4: unknown table 'kernels'; expected [params] and [[kernel]] rules",
    )
    refuses(
        tmp_path,
        'version = 1\nmatch = "a"\n\n[[kernel]]\nmatch = "a"\nflops = "1"\nbytes = "1"\n',
        "2: unknown table 'match'",
    )


def test_misspelt_rule_array_names_its_line(tmp_path: Path) -> None:
    # [[kernels]] (plural) is the likeliest typo; the message must point at it.
    refuses(
        tmp_path,
        '# my rules\n\n[[kernels]]\nmatch = "a"\nop = "elementwise"\nn = 4\n',
        "3: unknown table 'kernels'",
    )


def test_rules_that_are_not_tables(tmp_path: Path) -> None:
    refuses(tmp_path, "version = 1\n\nkernel = [1, 2]\n", "3: rules must be [[kernel]] tables")
    refuses(tmp_path, 'kernel = "gemm"\n', "1: rules must be [[kernel]] tables")


def test_params_key_named_kernel_is_a_param(tmp_path: Path) -> None:
    # Sanity for the test above: "kernel" under [params] is only a bad parameter
    # value (a list), not a rules array.
    path = write(tmp_path, "[params]\nH = 1\nkernel = [1, 2]\n")
    with pytest.raises(InputFormatError, match=r"params\.kernel"):
        load_theory_file(path)


def test_empty_file(tmp_path: Path) -> None:
    for text in ("", "# nothing yet\n", "[params]\nH = 1\n"):
        path = write(tmp_path, text)
        with pytest.raises(InputFormatError) as info:
            load_theory_file(path)
        assert str(info.value) == f"{path}: no [[kernel]] rules"


def test_missing_or_unreadable_file(tmp_path: Path) -> None:
    missing = tmp_path / "nosuch.toml"
    with pytest.raises(InputNotFoundError) as info:
        load_theory_file(missing)
    assert str(info.value) == f"{missing}: no such estimates file"
    with pytest.raises(InputNotFoundError, match="is a directory"):
        load_theory_file(tmp_path)  # a directory
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b'[[kernel]]\nmatch = "\xe9"\n')
    with pytest.raises((InputNotFoundError, InputFormatError), match=str(bad)):
        load_theory_file(bad)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ("n = -5", "6: rule 'bad': elementwise: parameter n: must be positive, got -5"),
        ("n = 0", "6: rule 'bad': elementwise: parameter n: must be positive, got 0"),
        ("n = 2.5", "6: rule 'bad': elementwise: parameter n: expected an integer, got 2.5"),
        (
            'n = 4\ndtype = "fp7"',
            "6: rule 'bad': elementwise: parameter dtype: unknown data type 'fp7'",
        ),
        ("n = true", "6: rule 'bad': elementwise: parameter n: expected an integer, got True"),
        ("inputs = 2", "6: rule 'bad': elementwise: missing required parameter n"),
    ],
)
def test_constant_rule_with_invalid_values_fails_on_load(
    tmp_path: Path, values: str, message: str
) -> None:
    # A rule without expressions over launch fields is checked when the file
    # is read, before any profile: the error names the rule's line (6).
    refuses(
        tmp_path,
        '[[kernel]]\nmatch = "a"\nop = "elementwise"\nn = 4\n\n'
        f'[[kernel]]\nid = "bad"\nmatch = "b"\nop = "elementwise"\n{values}\n',
        message,
    )


def test_other_rule_key_errors(tmp_path: Path) -> None:
    refuses(
        tmp_path,
        '[[kernel]]\nmatch = "a"\ngrid = "big"\nflops = "1"\nbytes = "1"\n',
        "3: [[kernel]] 'rule 1': grid: expected dimensions such as \"(128, 1, 1)\"",
    )
    refuses(
        tmp_path,
        '[[kernel]]\nmatch = "a"\nflops = "1"\nbytes = "1"\nprecision = "fp12"\n',
        "5: [[kernel]] 'rule 1': precision: expected one of fp64, fp32",
    )
    refuses(
        tmp_path,
        '[[kernel]]\nmatch = "a"\nflops = "1"\nbytes = "1"\nfoo = 1\n',
        "5: [[kernel]] 'rule 1': foo: unknown key; a rule without 'op' takes id, match",
    )
    refuses(
        tmp_path,
        '[[kernel]]\nmatch = "a"\nparams = 3\nflops = "1"\nbytes = "1"\n',
        "3: [[kernel]] 'rule 1': params: expected a table",
    )


def test_errors_at_match_time_name_the_rule(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        [[kernel]]
        id = "third"
        match = "split"
        op = "elementwise"
        n = "grid.x / 3"

        [[kernel]]
        match = "pred"
        when = "1 / (grid.x - 4) > 0"
        flops = "1"
        bytes = "1"

        [[kernel]]
        match = "local"
        params = { T = "1 / (grid.x - 4)" }
        flops = "T"
        bytes = "T"

        [[kernel]]
        match = "negative"
        flops = "grid.x - 10"
        bytes = "1"
        """,
    )
    tf = load_theory_file(path)
    cases = [
        # 32 / 3 = 10.67 elements is no integer.
        ("split_k", f"{path}:1: rule 'third': elementwise: parameter n: expected an integer"),
        ("pred_k", f"{path}:7: rule 'rule 2': when: division by zero"),
        ("local_k", f"{path}:13: rule 'rule 3': params.T: division by zero"),
        ("negative_k", f"{path}:19: rule 'rule 4': flops and bytes must not be negative"),
    ]
    for kernel, message in cases:
        grid = "(4, 1, 1)" if kernel != "split_k" else "(32, 1, 1)"
        with pytest.raises(InputFormatError) as info:
            tf.find(kernel, None, grid, "(1, 1, 1)")
        assert str(info.value).startswith(message), str(info.value)


# --- 3. Through the engine ------------------------------------------------------------


def launch(flops: float, dram: float, seconds: float = 1e-3) -> dict[str, float]:
    """``flops`` FP32 FLOPs (as FADDs), ``dram`` DRAM bytes, ``seconds`` long."""
    return {
        "sm__sass_thread_inst_executed_op_fadd_pred_on.sum": flops,
        "sm__sass_thread_inst_executed_op_fmul_pred_on.sum": 0.0,
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum": 0.0,
        "dram__bytes.sum": dram,
        "gpu__time_duration.sum": seconds,
    }


ENGINE_RULES = """\
[params]
H = 4096

[[kernel]]
match = "upsample"
op = "elementwise"
n = 1024
dtype = "fp32"

[[kernel]]
id = "fused"
match = "^my_fused"
params = { T = "grid.x * 128" }
flops = "2 * T"
bytes = "T * 4"
"""

ENGINE_KERNELS = [
    "upsample_nearest2d_kernel",
    "upsample_nearest2d_kernel",
    "my_fused_op",
    "mystery_kernel",
]
ENGINE_GRIDS = ["(1, 1, 1)", "(1, 1, 1)", "(8, 1, 1)", "(1, 1, 1)"]


def engine_run(
    tmp_path: Path,
    rows: list[dict[str, float]] | None = None,
    kernels: list[str] | None = None,
    grids: list[str] | None = None,
    **config: Any,
) -> tuple[Path, Analysis]:
    path = write(tmp_path, ENGINE_RULES)
    theory = TheoryConfig(file=load_theory_file(path), **config)
    rows = rows or [
        # upsample x 2: 2048 FLOPs and 32768 bytes each, 1 ms each.
        launch(2048, 32_768),
        launch(2048, 32_768),
        # my_fused_op, grid (8, 1, 1): T = 1024; theory 2048 FLOPs, 4096 bytes.
        launch(2048, 6144),
        launch(1000, 1000),
    ]
    a = analyze(
        profile(rows, kernel=kernels or ENGINE_KERNELS, grid=grids or ENGINE_GRIDS),
        gpu=spec(),
        clocks="datasheet",
        theory=theory,
    )
    return path, a


def value(frame: pd.DataFrame, column: str, row: int) -> Any:
    assert column in frame.columns, f"{column} missing"
    return frame[column].iloc[row]


def test_engine_theory_columns_per_launch(tmp_path: Path) -> None:
    path, a = engine_run(tmp_path)
    L = a.launches
    for row in (0, 1):
        # Theory: 1024 FLOPs, 8192 bytes (the minimal example); measured 2048 and 32768.
        assert value(L, "theory_flops", row) == 1024.0
        assert value(L, "theory_bytes", row) == 8192.0
        assert value(L, "theory_ai", row) == pytest.approx(0.125, rel=REL)  # 1024 / 8192
        assert value(L, "byte_excess", row) == pytest.approx(4.0, rel=REL)  # 32768 / 8192
        assert value(L, "flop_excess", row) == pytest.approx(2.0, rel=REL)  # 2048 / 1024
        assert value(L, "excess_bytes", row) == 24_576.0  # 32768 - 8192
        assert value(L, "confidence", row) == "user"
        assert value(L, "theory_source", row) == f"{path}:4 (rule 1)"
        assert value(L, "theory_op", row) == "elementwise"
        assert value(L, "theory_label", row) == "elementwise n=1024 fp32"
        assert value(L, "theory_precision", row) == "fp32"
        # Rule-assigned kernels still get their kernel-name family (for the
        # likely causes of excess traffic).
        assert value(L, "family", row) in FAMILIES
    # my_fused_op: T = 8 x 128 = 1024; FLOPs 2 x 1024 = 2048; bytes 1024 x 4 = 4096.
    assert value(L, "theory_flops", 2) == 2048.0
    assert value(L, "theory_bytes", 2) == 4096.0
    assert value(L, "theory_ai", 2) == pytest.approx(0.5, rel=REL)  # 2048 / 4096
    assert value(L, "byte_excess", 2) == pytest.approx(1.5, rel=REL)  # 6144 / 4096
    assert value(L, "flop_excess", 2) == pytest.approx(1.0, rel=REL)
    assert value(L, "excess_bytes", 2) == 2048.0  # 6144 - 4096
    assert value(L, "confidence", 2) == "user"
    assert value(L, "theory_source", 2) == f"{path}:10 (fused)"
    assert value(L, "theory_op", 2) == "custom"
    assert value(L, "theory_label", 2) == "fused"
    # The unmatched kernel has no theory at all: NaN / None, never 0.
    for column in (
        "theory_flops",
        "theory_bytes",
        "theory_ai",
        "byte_excess",
        "flop_excess",
        "excess_bytes",
    ):
        assert math.isnan(value(L, column, 3)), column
    for column in ("confidence", "theory_source", "theory_op", "theory_label"):
        assert pd.isna(value(L, column, 3)), column
    assert a.unmatched == ["mystery_kernel"]
    assert a.options["theory"] == {
        "file": str(path),
        "excess_threshold": 2.0,
        "min_time_share": 0.01,
    }


def test_engine_theory_columns_per_kernel_group(tmp_path: Path) -> None:
    path, a = engine_run(tmp_path)
    K = a.kernels.set_index("kernel")
    up = K.loc["upsample_nearest2d_kernel"]
    # Two launches summed: theory 2048 FLOPs, 16384 bytes; measured 4096 and 65536.
    assert up["launches"] == 2
    assert up["theory_flops"] == 2048.0
    assert up["theory_bytes"] == 16_384.0
    assert up["theory_ai"] == pytest.approx(0.125, rel=REL)
    assert up["byte_excess"] == pytest.approx(4.0, rel=REL)  # 65536 / 16384
    assert up["flop_excess"] == pytest.approx(2.0, rel=REL)  # 4096 / 2048
    assert up["excess_bytes"] == 49_152.0  # 65536 - 16384
    assert up["confidence"] == "user"
    assert up["theory_source"] == f"{path}:4 (rule 1)"
    assert up["time_share"] == pytest.approx(0.5, rel=REL)  # 2 ms of 4 ms
    fused = K.loc["my_fused_op"]
    assert fused["byte_excess"] == pytest.approx(1.5, rel=REL)
    assert math.isnan(K.loc["mystery_kernel"]["theory_bytes"])
    assert math.isnan(K.loc["mystery_kernel"]["byte_excess"])


def test_engine_findings(tmp_path: Path) -> None:
    path, a = engine_run(tmp_path)
    excess = [f for f in a.findings if f.kind == "excess-traffic"]
    # Only upsample (4x, 50% of the time); my_fused_op's 1.5x stays under 2.
    assert [f.kernel for f in excess] == ["upsample_nearest2d_kernel"]
    f = excess[0]
    assert f.severity == "warning"
    # 65536 B = "65.5 kB" measured vs 16384 B = "16.4 kB" minimal; 49152 B = "49.2 kB"
    # could be saved, 49152 / 1e11 B/s = 491.52 ns at the DRAM roof.
    assert f.message.startswith(
        "upsample_nearest2d_kernel moves 4.0x the minimal DRAM bytes of elementwise n=1024 fp32 "
        f"(65.5 kB measured vs 16.4 kB over 2 launches; theory from {path}:4 (rule 1), "
        "confidence user): 49.2 kB could be saved, 492 ns at the DRAM roof. Likely causes: "
    )
    assert f.recoverable_s == pytest.approx(49_152 / 1e11, rel=REL)
    assert f.source == "synthetic.csv"

    no_theory = [f for f in a.findings if f.kind == "no-theory"]
    assert len(no_theory) == 1
    assert no_theory[0].severity == "info"
    assert no_theory[0].kernel is None
    assert no_theory[0].message == (
        "1 kernel(s) matched no theory rule or model op and are shown without theory: "
        "mystery_kernel."
    )


def test_excess_threshold(tmp_path: Path) -> None:
    def fired(**config: Any) -> list[str]:
        _, a = engine_run(tmp_path, **config)
        return [str(f.kernel) for f in a.findings if f.kind == "excess-traffic"]

    assert fired() == ["upsample_nearest2d_kernel"]
    assert fired(excess_threshold=4.0) == ["upsample_nearest2d_kernel"]  # >= is inclusive
    assert fired(excess_threshold=4.5) == []  # 4 < 4.5
    # Lowered to 1.5, my_fused_op (exactly 1.5x) fires too.
    assert sorted(fired(excess_threshold=1.5)) == ["my_fused_op", "upsample_nearest2d_kernel"]


@pytest.mark.parametrize(("dram", "fires"), [(16_384, True), (16_383, False)])
def test_excess_exactly_at_two(tmp_path: Path, dram: float, fires: bool) -> None:
    # 16384 / 8192 = 2.0 fires; 16383 / 8192 = 1.99988 does not.
    _, a = engine_run(
        tmp_path,
        rows=[launch(1024, dram), launch(1000, 1000)],
        kernels=["upsample_kernel", "mystery_kernel"],
        grids=["(1, 1, 1)", "(1, 1, 1)"],
    )
    assert any(f.kind == "excess-traffic" for f in a.findings) is fires


@pytest.mark.parametrize(("seconds", "fires"), [(1.02e-5, True), (1e-6, False)])
def test_excess_needs_one_percent_of_the_time(tmp_path: Path, seconds: float, fires: bool) -> None:
    # upsample at 4x next to a 1 ms kernel: 10.2 us / 1.0102 ms = 1.0097% fires;
    # 1 us / 1.001 ms = 0.0999% does not.
    _, a = engine_run(
        tmp_path,
        rows=[launch(2048, 32_768, seconds), launch(1000, 1000, 1e-3)],
        kernels=["upsample_kernel", "mystery_kernel"],
        grids=["(1, 1, 1)", "(1, 1, 1)"],
    )
    share = float(a.kernels.set_index("kernel").loc["upsample_kernel", "time_share"])
    assert share == pytest.approx(seconds / (seconds + 1e-3), rel=1e-9)
    assert any(f.kind == "excess-traffic" for f in a.findings) is fires


def test_no_theory_finding_lists_at_most_five(tmp_path: Path) -> None:
    names = [f"mystery_{i}" for i in range(7)]
    _, a = engine_run(
        tmp_path,
        rows=[launch(1000, 1000) for _ in names],
        kernels=names,
        grids=["(1, 1, 1)"] * 7,
    )
    assert a.unmatched == names
    (f,) = [f for f in a.findings if f.kind == "no-theory"]
    assert f.message == (
        "7 kernel(s) matched no theory rule or model op and are shown without theory: "
        "mystery_0, mystery_1, mystery_2, mystery_3, mystery_4 and 2 more."
    )


def test_everything_matched_gives_no_no_theory_finding(tmp_path: Path) -> None:
    _, a = engine_run(
        tmp_path,
        rows=[launch(2048, 32_768)],
        kernels=["upsample_kernel"],
        grids=["(1, 1, 1)"],
    )
    assert a.unmatched == []
    assert not [f for f in a.findings if f.kind == "no-theory"]


def test_without_theory_no_theory_columns(tmp_path: Path) -> None:
    a = analyze(
        profile([launch(2048, 32_768)], kernel="upsample_kernel"), gpu=spec(), clocks="datasheet"
    )
    assert "theory_flops" not in a.launches
    assert "byte_excess" not in a.kernels
    assert a.theory is None and a.unmatched == []
    assert not [f for f in a.findings if f.kind in ("excess-traffic", "no-theory")]
