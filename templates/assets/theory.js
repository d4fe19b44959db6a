// ncu-roofline theory page: the calculator.  Repeats, step for step, the
// Python library's model expansion (ncu_roofline/theory/models.py), the op
// formulas it uses (theory/ops/*.py), the placement on a GPU's roofs
// (analysis/theory_table.py, analysis/floor.py) and the ridge crossing
// (analysis/theory_ridge.py); every constant comes from the embedded data
// (report/theory_calc.py).  tests/test_theory_calculator.py holds the two to
// equality.  window.ncuRoofline.theory({model, gpu, phase, batch, seq, dtype,
// kvDtype, tp}) returns the figures of `theory --format json` for one GPU.
(function () {
  "use strict";
  var body = document.body;
  var node = document.getElementById("ncu-roofline-data");
  var C = JSON.parse(node.textContent).calculator;
  if (!C) { return; }
  var GPU_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"];
  var GPU_SYMBOLS = ["circle", "diamond", "square", "triangle-up", "cross", "x"];
  var D = C.defaults;

  function fail(msg) { throw new Error(msg); }
  function canon(name) {
    var t = String(name).trim().toLowerCase().replace(/-/g, "_").replace(/^torch\./, "");
    if (Object.prototype.hasOwnProperty.call(C.aliases, t)) { return C.aliases[t]; }
    fail("unknown data type " + name);
  }
  function size(d) { return C.dtype_bytes[d]; }
  function matmulKey(a, w) {
    if ((a === "tf32" || w === "tf32") && (a === "tf32" || a === "fp32") && (w === "tf32" || w === "fp32")) {
      return "tensor_tf32";
    }
    return C.tensor_key[size(w) > size(a) ? w : a];
  }
  function vectorKey(d) { return C.vector_key[d]; }
  function est(op, flops, reads, writes, precision) {
    return { op: op, flops: flops, bytes: reads + writes, reads: reads, writes: writes, precision: precision };
  }

  // --- the op formulas (theory/ops) ---------------------------------------------
  function gemm(m, n, k, dt) {
    var a = size(dt);
    return est("gemm", 2.0 * 1 * m * n * k, 1 * m * k * a + 1 * k * n * a, 1 * m * n * a, matmulKey(dt, dt));
  }
  function rmsnorm(tokens, hidden, dt, residual) {
    var th = tokens * hidden, a = size(dt), weight = hidden * a;
    if (residual) { return est("add_rmsnorm", 5.0 * th, 2 * th * a + weight, th * a + th * a, vectorKey(dt)); }
    return est("rmsnorm", 4.0 * th, th * a + weight, th * a, vectorKey(dt));
  }
  function embedding(tokens, hidden, unique, dt) {
    var w = size(dt);
    return est("embedding", 0.0, tokens * D.index_bytes + unique * hidden * w, tokens * hidden * w, vectorKey(dt));
  }
  function rope(tokens, hq, hkv, rot, dt) {
    if (rot % 2) { fail("rope: parameter rot_dim: must be even, got " + rot); }
    var rotated = tokens * (hq + hkv) * rot, a = size(dt);
    return est("rope", 3.0 * rotated, rotated * a + tokens * rot * a + tokens * D.pos_bytes, rotated * a, vectorKey(dt));
  }
  function kvAppend(tokens, hkv, d, dt, kv) {
    var elements = tokens * 2 * hkv * d;
    return est("kv_append", kv !== dt ? 2.0 * elements : 0.0,
      elements * size(dt) + tokens * D.slot_bytes, elements * size(kv), vectorKey(dt));
  }
  function attnDecode(b, ctx, hq, hkv, d, dt, kv) {
    var sq = D.decode_q_tokens, a = size(dt), k = size(kv);
    var flops = 4.0 * b * hq * sq * ctx * d;
    if (D.decode_softmax_flops) { flops += 5.0 * b * hq * sq * ctx; }
    var reads = 2.0 * b * ctx * hkv * d * k + b * sq * hq * d * a;
    var page = D.decode_page_size;
    if (page) { reads += b * Math.ceil(ctx / page) * 4 + b * 4; }
    return est("attention_decode", flops, reads, b * sq * hq * d * a, matmulKey(dt, kv));
  }
  function attnPrefill(b, sq, hq, hkv, d, dt, kv) {
    var sk = sq, a = size(dt), k = size(kv);
    var keys = (2 * sk - sq) / 2;
    var flops = 4.0 * b * hq * sq * keys * d;
    if (D.prefill_softmax_flops) { flops += 5.0 * b * hq * sq * keys; }
    var reads = b * (sq * hq * d * a + 2 * sk * hkv * d * k);
    var writes = b * sq * hq * d * a;
    if (D.prefill_lse) { writes += b * hq * sq * 4; }
    return est("attention_prefill", flops, reads, writes, matmulKey(dt, kv));
  }
  function actAndMul(tokens, inter, act, dt) {
    var ti = tokens * inter;
    return est("act_and_mul", C.act_flops[act] * ti, 2 * ti * size(dt), ti * size(dt), vectorKey(dt));
  }
  function moe(experts, topk, tokens, hidden, inter, which, dt) {
    var active = Math.min(experts, experts * (1.0 - Math.pow(1.0 - topk / experts, tokens)));
    var a = size(dt), flops = 0.0, reads = 0.0, writes = 0.0;
    if (which === "gate_up") {
      flops += 4.0 * tokens * topk * hidden * inter;
      reads += active * 2 * hidden * inter * a + tokens * hidden * a;
      writes += tokens * topk * 2 * inter * a;
    } else {
      flops += 2.0 * tokens * topk * inter * hidden;
      reads += active * inter * hidden * a + tokens * topk * inter * a;
      writes += tokens * topk * hidden * a;
    }
    return est("moe", flops, reads, writes, matmulKey(dt, dt));
  }
  function sampling(batch, vocab) {
    var bv = batch * vocab, dt = canon(D.sampling_dtype);
    return est("sampling", 5.0 * bv, bv * size(dt), batch * 8.0, vectorKey(dt));
  }
  function allreduce(n, dt, ranks) {
    return est("allreduce", (ranks - 1) / ranks * n, n * size(dt), 0.0, vectorKey(dt));
  }

  // --- the model's ops (theory/models.py expand_model) --------------------------
  function positive(name, v) {
    if (typeof v !== "number" || !isFinite(v) || v <= 0 || Math.floor(v) !== v) {
      fail("model expansion: " + name + " must be a positive integer, got " + v);
    }
    return v;
  }
  function shard(cfg, what, value, tp) {
    if (value % tp) { fail(cfg.key + ": tp=" + tp + " does not divide " + what + "=" + value); }
    return value / tp;
  }
  function expand(cfg, phase, batch, seq, dtype, kvDtype, tp) {
    var mode = String(phase).trim().toLowerCase();
    if (C.phases.indexOf(mode) < 0) { fail("unknown phase " + phase); }
    positive("batch", batch); positive("seq", seq); positive("tp", tp);
    var dt = canon(dtype), kv = kvDtype ? canon(kvDtype) : dt;
    var hq = shard(cfg, "num_attention_heads", cfg.num_attention_heads, tp), hkv;
    if (cfg.num_key_value_heads >= tp) {
      hkv = shard(cfg, "num_key_value_heads", cfg.num_key_value_heads, tp);
    } else if (tp % cfg.num_key_value_heads) {
      fail(cfg.key + ": num_key_value_heads=" + cfg.num_key_value_heads + " cannot be replicated evenly over tp=" + tp);
    } else { hkv = 1; }
    var tokens = mode === "decode" ? batch : batch * seq;
    var H = cfg.hidden_size, d = cfg.head_dim, layers = cfg.num_hidden_layers, vocab = cfg.vocab_size;
    var ops = [];
    function push(role, e, count) { ops.push({ role: role, e: e, count: count }); }
    push("embedding", embedding(tokens, H, Math.ceil(Math.min(tokens, vocab) / tp), dt), 1);
    if (tp > 1) { push("allreduce", allreduce(tokens * H, dt, tp), 1); }
    push("rmsnorm", rmsnorm(tokens, H, dt, false), 1);
    var addNorm = rmsnorm(tokens, H, dt, true);
    if (hq % hkv) { fail("heads_kv " + hkv + " does not divide heads_q=" + hq); }
    var attention = mode === "decode"
      ? attnDecode(batch, cfg.sliding_window ? Math.min(seq, cfg.sliding_window) : seq, hq, hkv, d, dt, kv)
      : attnPrefill(batch, seq, hq, hkv, d, dt, kv);
    var layer = [
      ["qkv_proj", gemm(tokens, (hq + 2 * hkv) * d, H, dt)],
      ["rope", rope(tokens, hq, hkv, d, dt)],
      ["kv_append", kvAppend(tokens, hkv, d, dt, kv)],
      ["attention", attention],
      ["o_proj", gemm(tokens, H, hq * d, dt)]
    ];
    if (tp > 1) { layer.push(["allreduce", allreduce(tokens * H, dt, tp)]); }
    layer.push(["add_rmsnorm", addNorm]);
    if (cfg.num_local_experts) {
      var E = cfg.num_local_experts, k = cfg.num_experts_per_tok;
      if (k > E) { fail("moe: parameter topk: " + k + " is more than the " + E + " experts"); }
      var ei = shard(cfg, "expert intermediate size", cfg.moe_intermediate_size || cfg.intermediate_size, tp);
      layer.push(["moe_router", gemm(tokens, E, H, dt)]);
      layer.push(["moe_gate_up", moe(E, k, tokens, H, ei, "gate_up", dt)]);
      layer.push(["act_and_mul", actAndMul(tokens * k, ei, cfg.act, dt)]);
      layer.push(["moe_down", moe(E, k, tokens, H, ei, "down", dt)]);
    } else {
      var inter = shard(cfg, "intermediate_size", cfg.intermediate_size, tp);
      layer.push(["gate_up_proj", gemm(tokens, 2 * inter, H, dt)]);
      layer.push(["act_and_mul", actAndMul(tokens, inter, cfg.act, dt)]);
      layer.push(["down_proj", gemm(tokens, H, inter, dt)]);
    }
    if (tp > 1) { layer.push(["allreduce", allreduce(tokens * H, dt, tp)]); }
    if (layers > 1) { push("add_rmsnorm", addNorm, layers - 1); }
    layer.forEach(function (l) { push(l[0], l[1], layers); });
    push("final_norm", addNorm, 1);
    push("lm_head", gemm(batch, Math.ceil(vocab / tp), H, dt), 1);
    push("sampling", sampling(batch, vocab), 1);
    return { ops: ops, mode: mode, dt: dt, kv: kv, tokens: tokens };
  }

  // --- placement on a GPU's roofs (analysis/floor.py, theory_table.py) ----------
  function peakFor(gpu, key) {
    var alts = [key].concat(C.same_rate[key] || []);
    var cc = gpu.cc === null || gpu.cc === undefined ? NaN : gpu.cc;
    var older = Object.prototype.hasOwnProperty.call(C.first_cc, key) && cc < C.first_cc[key];
    for (var i = 0; i < alts.length; i += 1) {
      var v = gpu.compute[alts[i]];
      if (v === undefined || v === null || isNaN(v)) { continue; }
      if (i > 0 && older) { continue; }
      return { peak: v, key: alts[i] };
    }
    return { peak: null, key: null };
  }
  function place(e, gpu) {
    var pk = peakFor(gpu, e.precision), bw = gpu.dram;
    var ai = e.bytes > 0 && isFinite(e.flops) ? e.flops / e.bytes : (e.flops > 0 ? Infinity : NaN);
    var clock = pk.key && gpu.clocks[pk.key] ? gpu.clocks[pk.key] : [null, null];
    var out = { precision: pk.key, peak_flops_per_s: pk.peak, peak_clock_hz: clock[0], peak_clock: clock[1],
      peak_dram_bytes_per_s: bw, ridge: null, attainable_flops_per_s: null, bound: null, time_floor_s: null };
    if (e.op === "allreduce") { out.bound = "communication"; return out; }
    var compute = e.flops === 0 ? 0 : (pk.peak > 0 ? e.flops / pk.peak : NaN);
    var memory = e.bytes === 0 ? 0 : (bw > 0 ? e.bytes / bw : NaN);
    var floor = isNaN(compute) || isNaN(memory) ? NaN : Math.max(compute, memory);
    if (pk.peak && bw) {
      out.ridge = pk.peak / bw;
      if (isFinite(ai)) { out.attainable_flops_per_s = Math.min(pk.peak, ai * bw); }
      if (!isNaN(ai)) { out.bound = ai < out.ridge ? "memory" : "compute"; }
    }
    if (out.bound === null && bw && e.flops === 0) { out.bound = "memory"; }
    out.time_floor_s = isFinite(floor) ? floor : null;
    return out;
  }

  // --- the ridge crossing (analysis/theory_ridge.py) ----------------------------
  function passIntensity(cfg, mode, batch, seq, dt, kv, tp) {
    var flops = 0.0, bytes = 0.0;
    expand(cfg, mode, batch, seq, dt, kv, tp).ops.forEach(function (o) {
      flops += o.e.flops * o.count; bytes += o.e.bytes * o.count;
    });
    return bytes > 0 ? flops / bytes : NaN;
  }
  function least(reaches) {
    if (reaches(1)) { return 1; }
    var lo = 1, hi = 2;
    while (!reaches(hi)) {
      if (hi >= C.search_limit) { return null; }
      lo = hi; hi = Math.min(2 * hi, C.search_limit);
    }
    while (hi - lo > 1) {
      var mid = Math.floor((lo + hi) / 2);
      if (reaches(mid)) { hi = mid; } else { lo = mid; }
    }
    return hi;
  }
  function ridgeCrossing(cfg, gpu, mode, batch, seq, dt, kv, tp) {
    var over = mode === "decode" ? "batch" : "seq";
    var pk = peakFor(gpu, matmulKey(dt, dt)), bw = gpu.dram;
    var here = passIntensity(cfg, mode, batch, seq, dt, kv, tp);
    var out = { over: over, value: null, ridge: null, precision: pk.key,
      intensity: isFinite(here) ? here : null, searched_to: C.search_limit };
    if (!pk.peak || !bw) { return out; }
    var ridge = pk.peak / bw;
    out.ridge = ridge;
    out.value = least(function (x) {
      var b = over === "batch" ? x : batch, s = over === "batch" ? seq : x;
      return passIntensity(cfg, mode, b, s, dt, kv, tp) >= ridge;
    });
    return out;
  }

  function findGpu(key) {
    for (var i = 0; i < C.gpus.length; i += 1) { if (C.gpus[i].key === key) { return C.gpus[i]; } }
    fail("unknown GPU " + key);
  }
  function findModel(key) {
    if (!Object.prototype.hasOwnProperty.call(C.models, key)) { fail("unknown model " + key); }
    return C.models[key];
  }

  // The figures of `theory --format json` for one GPU: its totals, per-op
  // placements and the ridge crossing.
  function theory(p) {
    var cfg = findModel(p.model), gpu = findGpu(p.gpu);
    var batch = Number(p.batch), seq = Number(p.seq), tp = Number(p.tp || 1);
    var x = expand(cfg, p.phase, batch, seq, p.dtype || "bf16", p.kvDtype || null, tp);
    var ops = x.ops.map(function (o, i) {
      var e = o.e, pl = place(e, gpu);
      var ai = e.bytes > 0 ? e.flops / e.bytes : null;
      return { number: i + 1, name: o.role, op: e.op, count: o.count, flops: e.flops, bytes: e.bytes,
        ai: ai, precision: e.precision, peak_precision: pl.precision, peak_flops_per_s: pl.peak_flops_per_s,
        peak_clock_hz: pl.peak_clock_hz, peak_clock: pl.peak_clock, peak_dram_bytes_per_s: pl.peak_dram_bytes_per_s,
        ridge: pl.ridge, attainable_flops_per_s: pl.attainable_flops_per_s, bound: pl.bound,
        time_floor_s: pl.time_floor_s, pass_time_s: pl.time_floor_s === null ? null : pl.time_floor_s * o.count,
        share: null };
    });
    var total = 0.0;
    ops.forEach(function (o) { total += o.pass_time_s || 0.0; });
    if (total > 0) { ops.forEach(function (o) { if (o.pass_time_s !== null) { o.share = o.pass_time_s / total; } }); }
    var t = { time_floor_s: 0.0, flops: 0.0, bytes: 0.0, complete: true, collectives_not_included: 0 };
    ops.forEach(function (o) {
      t.flops += o.flops * o.count; t.bytes += o.bytes * o.count;
      if (o.pass_time_s === null) {
        t.complete = false;
        if (o.bound === "communication") { t.collectives_not_included += o.count; }
      } else { t.time_floor_s += o.pass_time_s; }
    });
    var used = {}, peaks = [];
    ops.forEach(function (o) {
      if (o.peak_precision && o.peak_flops_per_s !== null && !used[o.peak_precision]) {
        used[o.peak_precision] = true;
        peaks.push({ key: o.peak_precision, flops_per_s: o.peak_flops_per_s, clock_hz: o.peak_clock_hz, clock: o.peak_clock });
      }
    });
    return {
      model: cfg.key, model_name: cfg.name, gpu: gpu.key, gpu_name: gpu.name, phase: x.mode,
      batch: batch, seq: seq, dtype: x.dt, kv_dtype: x.kv, tp: tp,
      flops: t.flops, bytes: t.bytes, ai: t.bytes > 0 ? t.flops / t.bytes : null,
      time_floor_s: t.time_floor_s, complete: t.complete, collectives_not_included: t.collectives_not_included,
      tokens: x.tokens, tokens_per_s: t.time_floor_s > 0 ? x.tokens / t.time_floor_s : null,
      sparsity: "dense", peaks_used: peaks,
      ridge_crossing: ridgeCrossing(cfg, gpu, x.mode, batch, seq, x.dt, x.kv, tp),
      ops: ops
    };
  }

  window.ncuRoofline = window.ncuRoofline || {};
  window.ncuRoofline.theory = theory;
  window.ncuRoofline.theoryData = C;

  // --- formatting (render/format.py, roughly) -----------------------------------
  var PREFIX = [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
  function sig(v) { return Number(v.toPrecision(3)).toString(); }
  function si(v, unit) {
    if (v === null || v === undefined || !isFinite(v)) { return "—"; }
    for (var i = 0; i < PREFIX.length; i += 1) {
      if (Math.abs(v) >= PREFIX[i][0]) { return sig(v / PREFIX[i][0]) + " " + PREFIX[i][1] + unit; }
    }
    return sig(v) + " " + unit;
  }
  function dur(s) {
    if (s === null || s === undefined || !isFinite(s)) { return "—"; }
    if (s >= 1) { return sig(s) + " s"; }
    if (s >= 1e-3) { return sig(s * 1e3) + " ms"; }
    if (s >= 1e-6) { return sig(s * 1e6) + " µs"; }
    return sig(s * 1e9) + " ns";
  }
  function count(n) { return n === null || n === undefined ? "—" : Math.round(n).toLocaleString("en-US"); }
  function pct(x) { return x === null || x === undefined ? "—" : (100 * x).toFixed(1) + "%"; }
  function num(x) { return x === null || x === undefined || !isFinite(x) ? "—" : sig(x); }
  function peaksWords(r) {
    var groups = {}, order = [];
    r.peaks_used.forEach(function (p) {
      var c = p.clock_hz ? "the " + si(p.clock_hz, "Hz") + " " + p.clock + " clock" : "the vendor's clock";
      if (!groups[c]) { groups[c] = []; order.push(c); }
      groups[c].push(p.key + " " + si(p.flops_per_s, "FLOP/s"));
    });
    return "dense (2:4 sparsity not counted) datasheet peaks: " +
      order.map(function (c) { return groups[c].join(", ") + " at " + c; }).join("; ");
  }
  function ridgeWords(rc) {
    if (!rc || rc.ridge === null) { return "no roof for the model's precision"; }
    var tail = " (" + num(rc.intensity) + " FLOP/B now, ridge " + num(rc.ridge) + " FLOP/B of " + rc.precision + ")";
    if (rc.value === null) { return "memory-bound at every " + rc.over + " up to " + count(rc.searched_to) + tail; }
    return "compute-bound from " + rc.over + " " + count(rc.value) + tail;
  }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }

  // --- the page: controls, cards, table, chart ----------------------------------
  var form = document.getElementById("calc-form");
  if (!form) { return; }
  var ctl = {
    model: document.getElementById("calc-model"), phase: document.getElementById("calc-phase"),
    batch: document.getElementById("calc-batch"), seq: document.getElementById("calc-seq"),
    dtype: document.getElementById("calc-dtype"), kv: document.getElementById("calc-kv"),
    tp: document.getElementById("calc-tp"), gpus: document.getElementById("calc-gpus")
  };
  function option(sel, value, label, selected) {
    var o = el("option", { value: value }, label);
    o.selected = !!selected;
    sel.appendChild(o);
  }
  var init = C.initial;
  Object.keys(C.models).forEach(function (k) { option(ctl.model, k, C.models[k].name + " (" + k + ")", k === init.model); });
  C.phases.forEach(function (p) { option(ctl.phase, p, p, p === init.phase); });
  var dtypes = C.dtypes.slice();
  [init.dtype, init.kvDtype].forEach(function (d) { if (d && dtypes.indexOf(d) < 0) { dtypes.push(d); } });
  dtypes.forEach(function (d) { option(ctl.dtype, d, d, d === init.dtype); });
  option(ctl.kv, "", "same as dtype", !init.kvDtype);
  dtypes.forEach(function (d) { option(ctl.kv, d, d, d === init.kvDtype); });
  C.gpus.forEach(function (g) { option(ctl.gpus, g.key, g.name + " (" + g.key + ")", init.gpus.indexOf(g.key) >= 0); });
  ctl.batch.value = init.batch; ctl.seq.value = init.seq; ctl.tp.value = init.tp;

  function params() {
    var gpus = Array.prototype.filter.call(ctl.gpus.options, function (o) { return o.selected; })
      .map(function (o) { return o.value; });
    return { model: ctl.model.value, phase: ctl.phase.value, batch: Number(ctl.batch.value),
      seq: Number(ctl.seq.value), dtype: ctl.dtype.value, kvDtype: ctl.kv.value, tp: Number(ctl.tp.value), gpus: gpus };
  }

  function renderCards(p, results) {
    var sec = document.getElementById("pass");
    if (!sec) { return; }
    var cfg = C.models[p.model];
    var line = sec.querySelector(".hint");
    if (line) {
      line.textContent = cfg.name + " " + p.phase + ", batch " + p.batch + ", seq " + p.seq + ", " +
        results[0].dtype + (p.tp > 1 ? ", tp " + p.tp : "") + "; one pass is " +
        (p.phase === "decode" ? "a decode step: one new token per sequence" : "prefill: batch x seq prompt tokens") +
        ". Each floor is the least time any implementation could take, so tokens/s is an upper bound.";
    }
    var cards = sec.querySelector(".cards");
    cards.textContent = "";
    results.forEach(function (r, i) {
      var card = el("div", { "class": "card gpu-card", "data-gpu": r.gpu,
        style: "border-top: 4px solid " + GPU_COLOURS[i % GPU_COLOURS.length] });
      var meta = el("div", { "class": "meta" }, r.gpu_name + " ");
      meta.appendChild(el("span", { "class": "path" }, "(" + r.gpu + ")"));
      card.appendChild(meta);
      card.appendChild(el("div", { "class": "big" }, dur(r.time_floor_s)));
      card.appendChild(el("div", {}, "per pass · at most " +
        (r.tokens_per_s >= 100 ? count(r.tokens_per_s) : num(r.tokens_per_s)) + " tokens/s (" +
        count(r.tokens) + (r.tokens === 1 ? " token" : " tokens") + " per pass)"));
      if (i > 0 && results[0].time_floor_s > 0 && r.time_floor_s > 0) {
        card.appendChild(el("div", { "class": "speedup" },
          (results[0].time_floor_s / r.time_floor_s).toFixed(2) + "× the speed of " + results[0].gpu_name));
      }
      var top = null;
      r.ops.forEach(function (o) { if (o.share !== null && (top === null || o.share > top.share)) { top = o; } });
      if (top) {
        card.appendChild(el("div", { "class": "meta" }, "largest: #" + top.number + " " + top.name + ", " + pct(top.share) + " of the pass"));
      }
      if (r.collectives_not_included) {
        card.appendChild(el("div", { "class": "meta warn-text" }, count(r.collectives_not_included) + " collectives not included"));
      } else if (!r.complete) {
        card.appendChild(el("div", { "class": "meta warn-text" }, "some ops lack a roof: the floor is lower than the true one"));
      }
      card.appendChild(el("div", { "class": "meta ridge" }, ridgeWords(r.ridge_crossing)));
      card.appendChild(el("div", { "class": "meta peaks" }, peaksWords(r)));
      cards.appendChild(card);
    });
  }

  function renderRidge(results) {
    var list = document.getElementById("calc-ridge");
    list.textContent = "";
    results.forEach(function (r) {
      list.appendChild(el("li", { "data-gpu": r.gpu }, r.gpu_name + ": " + ridgeWords(r.ridge_crossing)));
    });
  }

  function cell(text, sort, cls) {
    var td = el("td", { "class": cls || "num", "data-sort": sort === null || sort === undefined ? "" : String(sort) }, text);
    return td;
  }
  function renderTable(results) {
    var table = document.getElementById("kernel-table");
    if (!table) { return; }
    var head = el("tr");
    [["number", "#", "num"], ["name", "op", ""], ["count", "count", "num wide"], ["flops", "FLOPs", "num wide"],
      ["bytes", "bytes", "num wide"], ["ai", "FLOP/B", "num wide"]].forEach(function (h) {
      head.appendChild(el("th", { "data-key": h[0], "class": h[2], "data-calc": "1" }, h[1]));
    });
    results.forEach(function (r, i) {
      var n = i + 1, many = results.length > 1;
      head.appendChild(el("th", { "data-key": "bound-" + n, "class": "wide gpu-col", "data-calc": "1", title: r.gpu_name }, r.gpu + " bound"));
      head.appendChild(el("th", { "data-key": "floor-" + n, "class": "num wide", "data-calc": "1" }, "floor"));
      head.appendChild(el("th", { "data-key": "pass-" + n, "class": "num", "data-calc": "1" }, (many ? r.gpu + " " : "") + "× count"));
      head.appendChild(el("th", { "data-key": "share-" + n, "class": "num", "data-calc": "1" }, "share"));
    });
    table.tHead.textContent = "";
    table.tHead.appendChild(head);
    var tbody = table.tBodies[0];
    tbody.textContent = "";
    results[0].ops.forEach(function (o, idx) {
      var tr = el("tr", { "data-number": String(o.number) });
      tr.appendChild(cell(String(o.number), o.number));
      var name = el("td", { "data-sort": o.name });
      var det = el("details");
      det.appendChild(el("summary", { "class": "kname" }, o.name));
      det.appendChild(el("div", { "class": "meta" }, o.op + " · " + o.precision));
      name.appendChild(det);
      tr.appendChild(name);
      tr.appendChild(cell(count(o.count), o.count, "num wide"));
      tr.appendChild(cell(si(o.flops, "FLOP"), o.flops, "num wide"));
      tr.appendChild(cell(si(o.bytes, "B"), o.bytes, "num wide"));
      tr.appendChild(cell(o.ai === null ? "—" : o.ai.toFixed(o.ai >= 100 ? 0 : 2), o.ai, "num wide"));
      results.forEach(function (r) {
        var q = r.ops[idx];
        tr.appendChild(cell(q.bound || "unplaced", q.bound || "unplaced", "wide"));
        tr.appendChild(cell(dur(q.time_floor_s), q.time_floor_s, "num wide"));
        tr.appendChild(cell(dur(q.pass_time_s), q.pass_time_s, "num"));
        var share = cell("", q.share, "num share");
        share.appendChild(el("span", { "class": "share-bar", style: "width: " + (q.share ? (100 * q.share).toFixed(1) : 0) + "%" }));
        share.appendChild(el("span", { "class": "share-text" }, pct(q.share)));
        tr.appendChild(share);
      });
      tbody.appendChild(tr);
    });
  }
  // Sorting for the rebuilt header (report.js's handlers sit on the first one).
  var table0 = document.getElementById("kernel-table");
  if (table0) {
    table0.tHead.addEventListener("click", function (e) {
      var th = e.target.closest("th[data-calc]");
      if (!th) { return; }
      var index = Array.prototype.indexOf.call(th.parentNode.children, th);
      var desc = !th.classList.contains("desc");
      Array.prototype.forEach.call(th.parentNode.children, function (h) { h.classList.remove("asc", "desc"); });
      th.classList.add(desc ? "desc" : "asc");
      var tbody = table0.tBodies[0];
      var rows = Array.prototype.slice.call(tbody.rows);
      function key(r) {
        var v = r.cells[index].getAttribute("data-sort");
        if (v === null || v === "") { return null; }
        var n = Number(v);
        return isNaN(n) ? v.toLowerCase() : n;
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (x === y) { return 0; }
        if (x === null) { return 1; }
        if (y === null) { return -1; }
        return (x < y ? -1 : 1) * (desc ? -1 : 1);
      });
      rows.forEach(function (r) { tbody.appendChild(r); });
    });
  }

  function renderChart(results) {
    var div = document.querySelector("#roofline .chart");
    if (!div || typeof Plotly === "undefined") { return; }
    var data = [], xs = [], ys = [];
    results.forEach(function (r, i) {
      r.ops.forEach(function (o) {
        if (o.flops > 0 && o.ai > 0 && o.time_floor_s > 0) { xs.push(o.ai); ys.push(o.flops / o.time_floor_s); }
      });
      var gpu = findGpu(r.gpu);
      r.peaks_used.forEach(function (p) { ys.push(p.flops_per_s); xs.push(p.flops_per_s / gpu.dram); });
    });
    var lo = Math.pow(10, Math.floor(Math.log10(Math.min.apply(null, xs.concat([0.1]))))) ;
    var hi = Math.pow(10, Math.ceil(Math.log10(Math.max.apply(null, xs.concat([1000]))) + 0.5));
    results.forEach(function (r, i) {
      var colour = GPU_COLOURS[i % GPU_COLOURS.length], gpu = findGpu(r.gpu);
      var top = Math.max.apply(null, r.peaks_used.map(function (p) { return p.flops_per_s; }).concat([0]));
      data.push({ type: "scatter", mode: "lines", x: [lo, top / gpu.dram], y: [lo * gpu.dram, top],
        name: r.gpu + " DRAM " + si(gpu.dram, "B/s"), legendgroup: "gpu-" + i, line: { color: colour } });
      r.peaks_used.forEach(function (p) {
        data.push({ type: "scatter", mode: "lines", x: [p.flops_per_s / gpu.dram, hi], y: [p.flops_per_s, p.flops_per_s],
          name: r.gpu + " " + p.key + " " + si(p.flops_per_s, "FLOP/s"), legendgroup: "gpu-" + i,
          line: { color: colour, dash: i > 0 ? "dash" : "solid" } });
      });
      var pts = r.ops.filter(function (o) { return o.flops > 0 && o.ai > 0 && o.time_floor_s > 0; });
      data.push({ type: "scatter", mode: "markers+text", name: r.gpu + " ops", legendgroup: "gpu-" + i,
        meta: { role: "calc", gpu: r.gpu },
        x: pts.map(function (o) { return o.ai; }), y: pts.map(function (o) { return o.flops / o.time_floor_s; }),
        text: pts.map(function (o) { return o.share !== null && o.share > 0.05 ? String(o.number) : ""; }),
        textposition: "top right",
        hovertext: pts.map(function (o) { return "#" + o.number + " " + o.name + " on " + r.gpu + ": " + o.bound +
          "-bound, floor " + dur(o.time_floor_s) + " × " + o.count + " = " + dur(o.pass_time_s) + " (" + pct(o.share) + ")"; }),
        hoverinfo: "text",
        marker: { color: colour, symbol: GPU_SYMBOLS[i % GPU_SYMBOLS.length],
          size: pts.map(function (o) { return 6 + 24 * Math.sqrt(o.share || 0); }), line: { width: 1, color: "#fff" } } });
    });
    var layout = Object.assign({}, div.layout || {}, {
      xaxis: { type: "log", title: { text: "arithmetic intensity (FLOP/B, minimal bytes)" } },
      yaxis: { type: "log", title: { text: "FLOP/s at the floor" } },
      showlegend: true, annotations: [], shapes: []
    });
    Plotly.react(div, data, layout, { responsive: true, displaylogo: false });
    body.setAttribute("data-calc-points", String(data.filter(function (t) { return t.meta && t.meta.role === "calc"; })
      .reduce(function (n, t) { return n + t.x.length; }, 0)));
  }

  var runs = 0;
  function update() {
    var p = params(), err = document.getElementById("calc-error");
    try {
      if (!p.gpus.length) { fail("choose at least one GPU"); }
      var results = p.gpus.map(function (g) {
        return theory({ model: p.model, gpu: g, phase: p.phase, batch: p.batch, seq: p.seq,
          dtype: p.dtype, kvDtype: p.kvDtype, tp: p.tp });
      });
      err.hidden = true; err.textContent = "";
      renderCards(p, results);
      renderRidge(results);
      renderTable(results);
      renderChart(results);
      runs += 1;
      body.setAttribute("data-calc-runs", String(runs));
      body.setAttribute("data-calc-error", "");
    } catch (e) {
      err.hidden = false;
      err.textContent = String(e && e.message ? e.message : e);
      body.setAttribute("data-calc-error", err.textContent);
    }
  }
  form.addEventListener("change", update);
  form.addEventListener("input", function (e) { if (e.target.type === "number") { update(); } });
  // The initial figures are the server's; only the ridge list is filled here.
  try {
    var first = params();
    renderRidge(first.gpus.map(function (g) {
      return theory({ model: first.model, gpu: g, phase: first.phase, batch: first.batch, seq: first.seq,
        dtype: first.dtype, kvDtype: first.kvDtype, tp: first.tp });
    }));
    body.setAttribute("data-calc-ready", "1");
  } catch (e) {
    body.setAttribute("data-calc-error", String(e && e.message ? e.message : e));
  }
})();
