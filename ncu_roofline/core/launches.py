"""The launch model held as columns, built without pandas.

:func:`finalize_columns` turns a reader's identity and metric arrays into
:class:`LaunchColumns`: every identity column of the registry
(:mod:`ncu_roofline.core.columns`) with its derived columns filled in, and
the metric columns in SI units.  The pandas frame that the analysis reads
(:func:`~ncu_roofline.core.model.finalize_launches`) is made from it on
demand by :meth:`LaunchColumns.to_frame`, so a command that only counts
(``inspect``) never imports pandas, whose import alone costs about as much
as parsing a 300 MB export.  The tables of one input and the inputs of a
profile are joined as columns too (:meth:`LaunchColumns.concat`): the readers
hand on columns only, and the frame is built once, when the analysis asks.

Texts are kept as codes into their distinct values (:class:`Coded`): the
derived columns (short names, grid products, the decimal-comma fix of the
compute capability) are computed once per distinct value, never per launch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from ncu_roofline.core.columns import LAUNCH_MODEL_COLUMNS
from ncu_roofline.core.names import unique_short_names
from ncu_roofline.core.table import Table, absent

if TYPE_CHECKING:
    import pandas as pd

_NAMES = tuple(c.name for c in LAUNCH_MODEL_COLUMNS)
_INT_COLUMNS = tuple(c.name for c in LAUNCH_MODEL_COLUMNS if c.dtype == "int")
_STR_COLUMNS = tuple(c.name for c in LAUNCH_MODEL_COLUMNS if c.dtype == "str")
#: Text columns whose frame dtype pandas infers (``str`` where every value is
#: text), as it always has for these derived columns; the others stay object.
_INFERRED = frozenset({"kernel_short", "cc", "duration_basis"})

#: The duration metrics, in order of preference, with the ``duration_basis`` each gives.
GPU_TIME_METRICS: tuple[tuple[str, str], ...] = tuple(
    (f"{base}{rollup}", base)
    for base in ("gpu__time_duration", "gpu__time_active")
    for rollup in (".sum", ".avg", ".max")
)


@dataclass(frozen=True)
class Coded:
    """A text column as codes into its distinct values; code -1 is missing."""

    codes: np.ndarray
    values: list[Any]

    def texts(self) -> np.ndarray:
        """One object per row: the value, or None where missing."""
        table = np.empty(len(self.values) + 1, dtype=object)
        table[: len(self.values)] = self.values
        table[len(self.values)] = None
        out: np.ndarray = table[self.codes]
        return out

    def present(self) -> np.ndarray:
        """The codes that occur, in order of first appearance."""
        found, first = np.unique(self.codes, return_index=True)
        keep = found >= 0
        order = np.argsort(first[keep], kind="stable")
        out: np.ndarray = found[keep][order]
        return out

    def mapped(self, func: Callable[[Any], Any]) -> Coded:
        """``func`` applied once per distinct value; a result of None or ``""`` is missing."""
        return _normal(self.codes, [func(v) for v in self.values])


def _missing(value: Any, blank: bool) -> bool:
    """None, NaN, pandas' NA, and with ``blank`` the empty text."""
    if value is None or (isinstance(value, float) and value != value):
        return True
    if isinstance(value, str):
        return blank and value == ""
    return type(value).__name__ == "NAType"


def _normal(codes: np.ndarray, values: list[Any], blank: bool = True) -> Coded:
    """``codes`` with each value that is missing (:func:`_missing`) read as missing."""
    gone = [_missing(v, blank) for v in values]
    if any(gone) and codes.size:
        remap = np.arange(len(values) + 1, dtype=np.int64)
        remap[np.flatnonzero(gone)] = -1
        remap[len(values)] = -1
        codes = remap[codes]
    return Coded(codes.astype(np.int64, copy=False), values)


def coded(values: Any, n: int, blank: bool = True) -> Coded:
    """Any column of texts (a list, an array, a Series, a :class:`Coded`) as codes.

    None, NaN and (with ``blank``) the empty text are missing.  Text goes through Arrow's
    dictionary encoding; a column that also holds other objects is
    factorised by pandas (a reader's rare odd column, never a hot path).
    """
    if values is None:
        return Coded(np.full(n, -1, dtype=np.int64), [])
    if isinstance(values, Coded):
        return _normal(values.codes, values.values, blank)
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = np.asarray(values, dtype=object)
    try:
        encoded = pa.array(arr, type=pa.string(), from_pandas=True).dictionary_encode()
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        import pandas as pd

        codes, uniques = pd.factorize(pd.Series(arr, dtype=object), use_na_sentinel=True)
        return _normal(np.asarray(codes, dtype=np.int64), list(uniques), blank)
    idx = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
    return _normal(np.asarray(idx, dtype=np.int64), encoded.dictionary.to_pylist(), blank)


def nones(values: np.ndarray) -> np.ndarray:
    """True where an object array holds None."""
    out: np.ndarray = np.equal(values, None)  # type: ignore[call-overload]
    return out


def joined_codes(columns: Sequence[Coded]) -> Coded:
    """Text columns one after another, as one column (values in order of first listing)."""
    index: dict[Any, int] = {}
    codes: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    for column in columns:
        # Each part's codes through a table to the joined values; -1 (missing) stays -1.
        table = np.array([*(index.setdefault(v, len(index)) for v in column.values), -1])
        codes.append(table.astype(np.int64)[column.codes])
    return Coded(np.concatenate(codes), list(index))


def first_set(first: Coded, second: Coded) -> Coded:
    """Per launch, ``first``'s value where it has one (not None or empty), else ``second``'s."""
    # Pairs of codes, decided once per distinct pair.
    width = len(second.values) + 1
    pairs, inverse = np.unique((first.codes + 1) * width + second.codes + 1, return_inverse=True)
    values: list[Any] = []
    for pair in pairs.tolist():
        a, b = divmod(pair, width)
        va = first.values[a - 1] if a > 0 else None
        values.append(va if va else (second.values[b - 1] if b > 0 else None))
    return _normal(inverse.reshape(-1).astype(np.int64), values)


def integers(values: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """An integer column as (int64 values, True where missing).

    Numbers are taken as they are; a value that is not a whole number is
    missing.  Text is converted as ``pandas.to_numeric`` would convert it
    (a reader's odd column only; the CSV readers pass numbers).
    """
    if values is None:
        return np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool)
    arr = np.asarray(values)
    if arr.dtype.kind in "iub":
        return arr.astype(np.int64), np.zeros(arr.size, dtype=bool)
    if arr.dtype.kind != "f":
        import pandas as pd

        series = pd.Series(np.asarray(values, dtype=object), dtype=object)
        arr = np.asarray(pd.to_numeric(series, errors="coerce"), dtype=np.float64)
    floats = arr.astype(np.float64, copy=False)
    with np.errstate(invalid="ignore"):
        missing = (
            ~np.isfinite(floats)
            | (floats != np.round(floats))
            | (floats < -(2.0**63))
            | (floats >= 2.0**63)
        )
    return np.where(missing, 0, floats).astype(np.int64), missing


def _dims_product(text: object) -> float | None:
    """``"(384, 1, 1)"`` -> 384.0; None when not a dimension tuple."""
    if not isinstance(text, str):
        return None
    parts = text.strip().strip("()").replace(",", " ").split()
    try:
        nums = [int(p) for p in parts]
    except ValueError:
        return None
    if not nums:
        return None
    return float(np.prod(nums))


def _products(column: Coded) -> tuple[np.ndarray, np.ndarray]:
    """Each row's product of its dimension tuple, as an integer column."""
    per_value = [_dims_product(v) for v in column.values] + [None]
    table = np.array([np.nan if p is None else p for p in per_value], dtype=np.float64)
    return integers(table[column.codes], column.codes.size)


def short_name_column(kernels: Coded) -> Coded:
    """Unique short names of the kernels present, one per distinct full name.

    Only the names that occur take part: a name in a left-out row must not
    change how its siblings are told apart.
    """
    present = kernels.present()
    names = [str(kernels.values[c]) for c in present.tolist()]
    mapping = unique_short_names(names)
    shorts: list[Any] = [None] * len(kernels.values)
    for c, name in zip(present.tolist(), names, strict=True):
        shorts[c] = mapping[name]
    return Coded(kernels.codes, shorts)


def durations(get: Callable[[str], np.ndarray | None], n: int) -> tuple[np.ndarray, Coded]:
    """Each launch's duration and the basis it rests on, from its metrics.

    ``get`` gives a metric's float64 values (None where the launches lack
    it).  ``gpu__time_duration.sum``, else ``gpu__time_active.sum``, else
    elapsed cycles over their clock.  The cycle form is NERSC's definition;
    it covers only the SM execution window and so reads slightly shorter
    than ncu's duration.
    """
    duration = np.full(n, np.nan)
    bases = [name for _, name in GPU_TIME_METRICS] + ["cycles/clock"]
    basis = np.full(n, -1, dtype=np.int64)
    # ncu's duration first; gpu__time_active (the time the GPU was busy with
    # the launch) where an export has only that.  A gpu__ counter has one
    # instance per GPU, so its .avg and .max are its .sum.
    for metric, name in GPU_TIME_METRICS:
        d = get(metric)
        if d is not None:
            ok = np.isnan(duration) & ~np.isnan(d)
            duration[ok] = d[ok]
            basis[ok] = bases.index(name)
    for unit in ("sm", "smsp", "gpc"):
        cyc, rate = f"{unit}__cycles_elapsed.avg", f"{unit}__cycles_elapsed.avg.per_second"
        if unit == "gpc":
            cyc = "gpc__cycles_elapsed.max"
        c, r = get(cyc), get(rate)
        if c is not None and r is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                d = c / r
            ok = np.isnan(duration) & np.isfinite(d) & (d > 0)
            duration[ok] = d[ok]
            basis[ok] = len(bases) - 1
    return duration, Coded(basis, bases)


def present_in_frame(frame: pd.DataFrame, metrics: list[str]) -> set[str]:
    """The ``metrics`` of a launch frame with at least one value."""
    if frame.empty or not metrics:
        return set()
    has = frame[metrics].notna().any(axis=0)
    return {c for c, ok in has.items() if ok}


class LaunchColumns:
    """One input's launches as columns: the launch model before its pandas frame.

    Built by :func:`finalize_columns` (no pandas), or from several parts one
    after another (:meth:`concat`: the tables of one input, the inputs of a
    profile).  :meth:`to_frame` gives the frame (built once); the counts a
    summary of the input needs are read from the columns.
    """

    def __init__(
        self,
        n: int,
        texts: dict[str, Coded],
        ints: dict[str, tuple[np.ndarray, np.ndarray]],
        floats: dict[str, np.ndarray],
        metrics: dict[str, np.ndarray],
    ) -> None:
        self.n = n
        self._texts = texts
        self._ints = ints
        self._floats = floats
        self.metrics = metrics
        self._frame: pd.DataFrame | None = None
        #: The parts of :meth:`concat` until the frame is built.
        self._parts: list[LaunchColumns] | None = None
        self._renamed = False

    @classmethod
    def concat(cls, parts: Sequence[LaunchColumns], renamed: bool = False) -> LaunchColumns:
        """``parts``' launches one after another, as ``pandas.concat`` of their frames.

        The parts are kept, not copied: a column is joined when asked for,
        and the frame is the parts' frames concatenated, built once.  With
        ``renamed`` the short names are computed again over every part
        (names unique per input can meet their sibling from another input).
        """
        out = cls(sum(p.n for p in parts), {}, {}, {}, {})
        out._parts = list(parts)
        out._renamed = renamed
        return out

    def parts(self) -> list[LaunchColumns]:
        """The parts these columns were joined from (:meth:`concat`), or themselves alone."""
        return list(self._parts) if self._parts is not None else [self]

    def __len__(self) -> int:
        return self.n

    def to_frame(self) -> pd.DataFrame:
        """The launch frame (identity columns in registry order, then the metrics)."""
        if self._frame is None:
            self._frame = self._build_frame()
            # The frame holds copies: the arrays go, and the columns read from it.
            self._texts, self._ints, self._floats, self.metrics = {}, {}, {}, {}
            self._parts = None
        return self._frame

    def _build_frame(self) -> pd.DataFrame:
        import pandas as pd

        if self._parts is not None:
            frame = pd.concat([p.to_frame() for p in self._parts], ignore_index=True, sort=False)
            if self._renamed:
                shorts = _short_names_of(frame["kernel"].to_numpy(dtype=object))
                frame["kernel_short"] = pd.Series(shorts, index=frame.index)
            joined: pd.DataFrame = frame
            return joined
        frame = self.identity_frame(_NAMES)
        if self.metrics:
            metrics = pd.DataFrame(self.metrics, index=frame.index)
            frame = pd.concat([frame, metrics], axis=1)
        out: pd.DataFrame = frame
        return out

    def identity_frame(self, names: Sequence[str]) -> pd.DataFrame:
        """The identity columns ``names`` as the launch frame holds them (nullable
        ``Int64`` integers, texts as objects or as pandas infers them, float64),
        built from the columns: no metric is copied."""
        import pandas as pd

        if self._parts is not None:
            # As the parts' frames are joined (pandas' dtype of a column joined
            # from parts that hold it as text and as all-missing, too).
            joined = pd.concat(
                [p.identity_frame(names) for p in self._parts], ignore_index=True, sort=False
            )
            if self._renamed and "kernel_short" in joined:
                joined["kernel_short"] = pd.Series(
                    _short_names_of(joined["kernel"].to_numpy(dtype=object)), index=joined.index
                )
            return joined
        data: dict[str, Any] = {}
        for name in names:
            if name in _INT_COLUMNS:
                values, missing = self.integer(name)
                data[name] = pd.arrays.IntegerArray(values, missing.copy())
            elif name in _STR_COLUMNS:
                texts = self.text(name).texts()
                data[name] = (
                    pd.Series(texts) if name in _INFERRED else pd.Series(texts, dtype=object)
                )
            else:
                data[name] = self._float_column(name)
        frame: pd.DataFrame = pd.DataFrame(data, index=pd.RangeIndex(self.n))
        return frame

    def table(self) -> Table:
        """The launches as a :class:`~ncu_roofline.core.table.Table`, without pandas.

        The identity columns in registry order (texts as objects with None,
        integers as float64 with NaN), then the metrics in the frame's order.
        One input's metric arrays are the table's own (nothing copied); the
        parts of :meth:`concat` are joined column by column as
        ``pandas.concat`` joins their frames (a metric a part lacks is
        missing there).  Once the frame is built, it is read instead.
        """
        if self._frame is not None:
            return Table.from_frame(self._frame)
        columns: dict[str, np.ndarray | Callable[[], np.ndarray]] = {}
        # Identity columns are made when a stage reads them: a text column
        # made for every launch and never read would add to the peak.  They
        # are made from the columns as they are now, whatever is done to
        # these launches before (a frame built, then edited by its holder).
        view = self.identity_view()
        for name in _NAMES:
            columns[name] = partial(view._identity_column, name)
        for name in self.metric_names():
            columns[name] = self._metric_column(name)
        return Table(columns, self.n)

    def identity_view(self) -> LaunchColumns:
        """These launches' identity columns as they are now, as columns of their own (no
        metric), which what is done to these columns later does not reach.

        Nothing is copied while the frame is not built: the view holds the same
        arrays (building the frame lets go of them, it never changes them).
        Once the frame is built, its identity columns are copied: whoever holds
        the frame may edit it.
        """
        if self._frame is not None:
            view = LaunchColumns(self.n, {}, {}, {}, {})
            view._frame = self._frame[[c for c in _NAMES if c in self._frame]].copy()
            return view
        view = LaunchColumns(self.n, self._texts, self._ints, self._floats, {})
        view._parts, view._renamed = self._parts, self._renamed
        return view

    def _identity_column(self, name: str) -> np.ndarray:
        """An identity column as a table holds it."""
        if name in _INT_COLUMNS:
            values, missing = self.integer(name)
            return np.where(missing, np.nan, values.astype(np.float64))
        if name in _STR_COLUMNS:
            return self.text(name).texts()
        return self._float_column(name)

    def _float_column(self, name: str) -> np.ndarray:
        """A float identity column (``duration_s``), joined over the parts."""
        if self._parts is not None:
            if not self._parts:
                return np.zeros(0, dtype=np.float64)
            return np.concatenate([p._float_column(name) for p in self._parts])
        if name in self._floats:
            return self._floats[name]
        return self.table()[name]

    def _metric_column(self, name: str) -> np.ndarray:
        """One metric's values, joined over the parts (NaN, or None among texts, where a
        part lacks it)."""
        if self._parts is None:
            if name in self.metrics:
                return self.metrics[name]
            if self._frame is not None and name in self._frame:
                return self.table()[name]
            return np.full(self.n, np.nan)
        pieces = [p._metric_column(name) for p in self._parts]
        if not pieces:
            return np.zeros(0, dtype=np.float64)
        if all(piece.dtype != object for piece in pieces):
            return np.concatenate(pieces).astype(np.float64, copy=False)
        joined = np.concatenate([piece.astype(object) for piece in pieces])
        joined[absent(joined)] = None
        return joined

    def text(self, name: str) -> Coded:
        """A text identity column as codes."""
        if name not in self._texts:
            if self._parts is not None:
                if name == "kernel_short" and self._renamed:
                    self._texts[name] = short_name_column(self.text("kernel"))
                else:
                    self._texts[name] = joined_codes([p.text(name) for p in self._parts])
            else:
                # As the frame holds it: an empty kernel name is a name there.
                texts = self.to_frame()[name].to_numpy(dtype=object)
                self._texts[name] = coded(texts, self.n, blank=False)
        return self._texts[name]

    def integer(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """An integer identity column as (values, True where missing)."""
        if name not in self._ints:
            if self._parts is not None:
                got = [p.integer(name) for p in self._parts]
                self._ints[name] = (
                    np.concatenate([v for v, _ in got] or [np.zeros(0, dtype=np.int64)]),
                    np.concatenate([m for _, m in got] or [np.zeros(0, dtype=bool)]),
                )
            else:
                values = self.to_frame()[name].to_numpy(dtype=np.float64, na_value=np.nan)
                self._ints[name] = integers(values, self.n)
        return self._ints[name]

    def value(self, name: str, i: int) -> Any:
        """Launch ``i``'s identity value ``name`` (None when missing)."""
        if name in _INT_COLUMNS:
            values, missing = self.integer(name)
            return None if missing[i] else int(values[i])
        if name in _STR_COLUMNS:
            column = self.text(name)
            code = int(column.codes[i])
            return None if code < 0 else column.values[code]
        value = self.to_frame()[name].iat[i]
        return None if _missing(value, blank=False) else value

    def metric_names(self) -> list[str]:
        """The metric columns, in order."""
        if self._parts is not None:
            # pandas.concat's order: each part's new columns after those before.
            return list(dict.fromkeys(m for p in self._parts for m in p.metric_names()))
        if self._frame is not None and not self.metrics:
            return [c for c in self._frame.columns if c not in _NAMES]
        return list(self.metrics)

    def present_metrics(self) -> set[str]:
        """Metric ids with at least one value."""
        if self._parts is not None:
            return set().union(*(p.present_metrics() for p in self._parts))
        if self._frame is not None and not self.metrics:
            return present_in_frame(self._frame, self.metric_names())
        out: set[str] = set()
        for name, values in self.metrics.items():
            if values.dtype == object:
                found = not bool(nones(values).all())
            else:
                found = bool((~np.isnan(values)).any())
            if found:
                out.add(name)
        return out

    def launch_count(self) -> int:
        """Launches the rows stand for (a summary row stands for ``invocations``)."""
        values, missing = self.integer("invocations")
        return int(np.where(missing, 1, values).sum())

    def kernel_count(self) -> int:
        """Distinct kernel names."""
        return int(self.text("kernel").present().size)

    def device_labels(self) -> list[str]:
        """One label per distinct device, name and compute capability, in order of appearance."""
        dev, dev_missing = self.integer("device")
        names, ccs = self.text("device_name"), self.text("cc")
        if self.n == 0:
            return []
        # One integer per (device, name, CC): a 1-D unique, not a sort of rows.
        _, dev_codes = np.unique(
            np.where(dev_missing, np.iinfo(np.int64).min, dev), return_inverse=True
        )
        dev_codes = dev_codes.reshape(-1).astype(np.int64)
        widths = (len(names.values) + 1, len(ccs.values) + 1)
        if (int(dev_codes.max()) + 1) * widths[0] * widths[1] < 1 << 62:
            key = (dev_codes * widths[0] + names.codes + 1) * widths[1] + ccs.codes + 1
            _, first = np.unique(key, return_index=True)
        else:  # too many combinations for one int64: unique rows
            rows = np.stack([dev_codes, names.codes, ccs.codes], axis=1)
            _, first = np.unique(rows, axis=0, return_index=True)
        labels: list[str] = []
        for i in np.sort(first).tolist():
            name, cc = self.value("device_name", i), self.value("cc", i)
            device = self.value("device", i)
            label = str(name) if name is not None else None
            if label is None:
                label = f"device {device}" if device is not None else "unknown device"
            if cc is not None:
                label = f"{label} CC {cc}"
            if label not in labels:
                labels.append(label)
        return labels


def _short_names_of(kernels: np.ndarray) -> np.ndarray:
    """Short names of joined inputs' kernels, as core.model.short_names gives them: once
    per distinct name of the whole column."""
    return short_name_column(coded(kernels, len(kernels))).texts()


def finalize_columns(identity: dict[str, Any], metrics: dict[str, Any], n: int) -> LaunchColumns:
    """Assemble the launch model's columns from a reader's identity and metric arrays.

    Missing identity columns are missing throughout; derived identity
    columns (short name, grid/block products, duration) are computed here
    so every reader agrees on them.  An identity name the column registry
    lacks is a programming error (``ValueError``): a reader fills registry
    columns only.
    """
    unknown = [c for c in identity if c not in _NAMES]
    if unknown:
        raise ValueError(f"not launch-model columns: {', '.join(unknown)}")
    texts = {c: coded(identity.get(c), n) for c in _STR_COLUMNS}
    ints = {c: integers(identity.get(c), n) for c in _INT_COLUMNS}
    kernel = texts["kernel"]
    if (kernel.codes < 0).any():
        values = [*kernel.values, ""]
        texts["kernel"] = Coded(np.where(kernel.codes < 0, len(values) - 1, kernel.codes), values)
    # Decimal-comma locales print the compute capability as "8,6".
    texts["cc"] = texts["cc"].mapped(lambda c: c.replace(",", ".") if isinstance(c, str) else c)
    texts["kernel_short"] = short_name_column(texts["kernel"])
    for col, dims in (("grid_blocks", "grid"), ("block_threads", "block")):
        if ints[col][1].all():
            ints[col] = _products(texts[dims])
    # Old exports have no grid/block columns but may carry the launch metrics.
    for col, metric in (
        ("grid_blocks", "launch__grid_size"),
        ("block_threads", "launch__block_size"),
    ):
        if metric in metrics:
            own, missing = ints[col]
            fill, fill_missing = integers(
                np.round(np.asarray(metrics[metric], dtype=np.float64)), n
            )
            ints[col] = (np.where(missing, fill, own), missing & fill_missing)
    if ints["invocations"][1].all():
        ints["invocations"] = (np.ones(n, dtype=np.int64), np.zeros(n, dtype=bool))
    names = metrics.get("device__attribute_display_name")
    kept = {
        k: _metric_array(v) for k, v in metrics.items() if k != "device__attribute_display_name"
    }
    if isinstance(names, Coded):
        texts["device_name"] = first_set(texts["device_name"], names)
    elif names is not None:
        own = texts["device_name"].texts()
        texts["device_name"] = coded(np.where(nones(own), np.asarray(names, dtype=object), own), n)
    duration, texts["duration_basis"] = durations(lambda m: _float_metric(kept, m), n)
    return LaunchColumns(n, texts, ints, {"duration_s": duration}, kept)


def _metric_array(values: Any) -> np.ndarray:
    """A metric's values as an array: numbers (None missing) as float64, texts as objects."""
    arr = np.asarray(values)
    if arr.dtype.kind in "US":
        return arr.astype(object)
    if arr.dtype == object and all(
        v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in arr.tolist()
    ):
        # A list of numbers with gaps, as pandas has always read it.
        return np.array([np.nan if v is None else v for v in arr.tolist()], dtype=np.float64)
    return arr


def _float_metric(metrics: dict[str, np.ndarray], name: str) -> np.ndarray | None:
    values = metrics.get(name)
    if values is None:
        return None
    if values.dtype == object:
        import pandas as pd

        return np.asarray(pd.to_numeric(pd.Series(values), errors="coerce"), dtype=np.float64)
    return values.astype(np.float64, copy=False)
