/**
 * Script evaluated in every fresh workflow context before the workflow module. It receives the
 * pass's setup as JSON (args, journal, fan-out limits) and returns the functions the host drives a
 * pass with: `start(run)` calls the module's default export with the frozen `wf` object, `deliver(i)`
 * settles the activity of journal entry `i`, `collect()` reports the outcome as JSON.
 *
 * Every `wf` call that has an effect is an activity numbered by call order (`seq`). An activity's
 * result is never handed over when it is called: the host delivers journal entries one at a time,
 * in the order they completed, and runs the microtask queue empty between two of them, so a
 * re-execution sees exactly the interleaving of the first execution, whatever the script does
 * with its promises. `wf.now()` and `wf.random()` are synchronous: a journaled value is returned at
 * once, a new one is recorded. `Date.now()`, `new Date()` and `Math.random()` throw.
 */
export const WF_PRELUDE = `(function (setupJson) {
  "use strict";
  var parse = JSON.parse, stringify = JSON.stringify, freeze = Object.freeze, keys = Object.keys;
  var isArray = Array.isArray, ErrorCtor = Error, defineProperty = Object.defineProperty;
  var toStr = String, PromiseCtor = Promise, RealDate = Date, realNow = Date.now, realRandom = Math.random;
  var construct = Reflect.construct, slice = Array.prototype.slice, min = Math.min, max = Math.max;
  var floor = Math.floor, G = globalThis;
  var CLIP = 2000, MAX_LOGS = 500;

  var setup = parse(setupJson);
  var journal = setup.journal, bySeq = {};
  for (var i = 0; i < journal.length; i++) bySeq[journal[i].seq] = journal[i];
  var calls = [], syncEntries = [], logs = [], progress = null;
  var state = "running", value, failure = null, fatal = null, seq = 0;

  function clip(s) { s = toStr(s); return s.length > CLIP ? s.slice(0, CLIP) + "…" : s; }
  function show(v) {
    if (typeof v === "string") return v;
    try { var j = stringify(v); return j === undefined ? toStr(v) : j; } catch (e) { return toStr(v); }
  }
  // Canonical JSON: sorted keys, so the same parameters always give the same fingerprint.
  function canon(v) {
    if (v === null || typeof v !== "object") return stringify(v);
    if (isArray(v)) { var a = []; for (var i = 0; i < v.length; i++) a.push(canon(v[i]) || "null"); return "[" + a.join(",") + "]"; }
    var ks = keys(v).sort(), parts = [];
    for (var j = 0; j < ks.length; j++) if (v[ks[j]] !== undefined) parts.push(stringify(ks[j]) + ":" + canon(v[ks[j]]));
    return "{" + parts.join(",") + "}";
  }
  function plain(v) { var j = stringify(v === undefined ? null : v); return j === undefined ? null : parse(j); }
  function diverged(message) {
    fatal = fatal || message;
    throw new ErrorCtor(message);
  }
  function toError(info) {
    var e = new ErrorCtor(info.message);
    defineProperty(e, "code", { value: info.code, enumerable: true });
    if (info.fields !== undefined) defineProperty(e, "fields", { value: info.fields, enumerable: true });
    return e;
  }

  function activity(kind, params) {
    var p = plain(params), fp = canon(p), s = seq++;
    var past = bySeq[s];
    if (past && (past.kind !== kind || past.fp !== fp)) {
      diverged("The script no longer matches its journal at activity #" + s + ": it now calls " + kind +
        " where the journal has " + past.kind + ". A workflow must make the same calls in the same order on " +
        "every run (its only inputs are its args and the results of its activities).");
    }
    return new PromiseCtor(function (resolve, reject) {
      calls[s] = { seq: s, kind: kind, fp: fp, params: p, resolve: resolve, reject: reject, settled: false };
    });
  }
  function syncValue(kind, make) {
    var s = seq++, past = bySeq[s];
    if (past) {
      if (past.kind !== kind) diverged("The script no longer matches its journal at activity #" + s + ": it now calls " + kind + " where the journal has " + past.kind + ".");
      return past.value;
    }
    var v = make();
    syncEntries.push({ seq: s, kind: kind, fp: "null", ok: true, value: v });
    return v;
  }

  function clamp(n, lo, hi) { n = floor(+n); return n !== n ? lo : max(lo, min(hi, n)); }
  function map(items, fn, opts) {
    if (!isArray(items)) return PromiseCtor.reject(new ErrorCtor("wf.map: items must be an array"));
    if (typeof fn !== "function") return PromiseCtor.reject(new ErrorCtor("wf.map: fn must be a function"));
    var want = opts && opts.concurrency !== undefined ? opts.concurrency : setup.concurrency.default;
    var width = clamp(want, 1, setup.concurrency.max);
    var results = new Array(items.length), next = 0, failed = null;
    function lane() {
      if (failed || next >= items.length) return PromiseCtor.resolve();
      var i = next++;
      return PromiseCtor.resolve().then(function () { return fn(items[i], i); }).then(
        function (v) { results[i] = v; return lane(); },
        function (e) { if (!failed) failed = { error: e }; });
    }
    var lanes = [];
    for (var k = 0; k < min(width, items.length); k++) lanes.push(lane());
    return PromiseCtor.all(lanes).then(function () { if (failed) throw failed.error; return results; });
  }
  function handle(info) {
    var id = info.sessionId;
    return freeze({
      id: id, profileKey: info.profileKey, title: info.title,
      invoke: function (o) { return invoke(id, o); },
      transcript: function (o) { return activity("session.transcript", { sessionId: id, tail: o && o.tail }); },
      append: function (o) { return activity("session.append", { sessionId: id, text: o && o.text }); },
    });
  }
  function invoke(sessionId, o) {
    var p = { sessionId: sessionId };
    if (o) { var ks = keys(o); for (var i = 0; i < ks.length; i++) p[ks[i]] = o[ks[i]]; }
    return activity("session.invoke", p);
  }
  function withOpts(base, o) {
    if (o) { var ks = keys(o); for (var i = 0; i < ks.length; i++) base[ks[i]] = o[ks[i]]; }
    return base;
  }

  var wf = freeze({
    args: freeze(plain(setup.args)),
    agents: freeze({
      create: function (profileKey, o) { return activity("agents.create", withOpts({ profileKey: profileKey }, o)).then(handle); },
      acquire: function (o) { return activity("agents.acquire", withOpts({}, o)).then(handle); },
      invoke: invoke,
    }),
    ask: function (spec) { return activity("ask", spec); },
    map: map,
    all: function (thunks, opts) {
      return map(thunks, function (t) { if (typeof t !== "function") throw new ErrorCtor("wf.all takes functions (thunks)"); return t(); }, opts);
    },
    workspace: freeze({
      read: function (path) { return activity("workspace.read", { path: path }).then(function (r) { return r.text; }); },
      list: function (path) { return activity("workspace.list", { path: path }); },
    }),
    plot: freeze({ brief: function (chapterId) { return activity("plot.brief", { chapterId: chapterId }); } }),
    world: freeze({ query: function (code) { return activity("world.query", { code: code }); } }),
    tools: freeze({ call: function (name, input) { return activity("tools.call", { name: name, input: input === undefined ? {} : input }); } }),
    log: function () {
      var parts = [];
      for (var i = 0; i < arguments.length; i++) parts.push(clip(show(arguments[i])));
      if (logs.length < MAX_LOGS) logs.push(parts.join(" "));
    },
    progress: function (p) {
      var next = {}, ks, i;
      if (progress) { ks = keys(progress); for (i = 0; i < ks.length; i++) next[ks[i]] = progress[ks[i]]; }
      if (p && typeof p === "object") {
        if (p.phase !== undefined) next.phase = clip(p.phase);
        if (p.done !== undefined) next.done = +p.done;
        if (p.total !== undefined) next.total = +p.total;
        if (p.note !== undefined) next.note = clip(p.note);
      }
      progress = next;
    },
    now: function () { return syncValue("now", function () { return realNow(); }); },
    random: function () { return syncValue("random", function () { return realRandom(); }); },
  });

  // Wall-clock time and randomness would differ on a re-execution: only wf.now()/wf.random() are allowed.
  function refuse(what, instead) {
    return function () { throw new ErrorCtor(what + " is not available in a workflow (a re-run would see another value): use " + instead); };
  }
  var WfDate = function Date() {
    if (new.target === undefined || arguments.length === 0) refuse("new Date() without arguments", "new Date(await wf.now()) or new Date(wf.now())")();
    return construct(RealDate, slice.call(arguments), new.target);
  };
  WfDate.prototype = RealDate.prototype;
  defineProperty(RealDate.prototype, "constructor", { value: WfDate, writable: true, configurable: true });
  defineProperty(WfDate, "now", { value: refuse("Date.now()", "wf.now()") });
  defineProperty(WfDate, "parse", { value: RealDate.parse });
  defineProperty(WfDate, "UTC", { value: RealDate.UTC });
  defineProperty(G, "Date", { value: WfDate, writable: true, configurable: true });
  defineProperty(Math, "random", { value: refuse("Math.random()", "wf.random()"), writable: true, configurable: true });

  function describe(e) {
    if (e === null || (typeof e !== "object" && typeof e !== "function")) return { name: "thrown value", message: clip(show(e)) };
    var d = { name: e.name === undefined ? "thrown value" : clip(e.name), message: e.message === undefined ? clip(show(e)) : clip(e.message), stack: e.stack === undefined ? "" : clip(e.stack) };
    if (typeof e.lineNumber === "number") d.lineNumber = e.lineNumber;
    if (typeof e.code === "string") d.code = e.code;
    if (e.fields !== undefined) d.fields = plain(e.fields);
    return d;
  }

  return {
    start: function (run) {
      if (typeof run !== "function") { state = "failed"; failure = { name: "TypeError", message: "the workflow's default export must be a function: export default async function run(wf, args) { … }" }; return; }
      var p;
      try { p = PromiseCtor.resolve(run(wf, wf.args)); } catch (e) { state = "failed"; failure = describe(e); return; }
      p.then(function (v) { if (state === "running") { state = "done"; value = plain(v); } },
        function (e) { if (state === "running") { state = "failed"; failure = describe(e); } });
    },
    deliver: function (i) {
      var entry = journal[i], call = calls[entry.seq];
      if (!call) diverged("The script no longer matches its journal: activity #" + entry.seq + " (" + entry.kind + ") is in the journal but the script did not call it. A workflow must make the same calls in the same order on every run.");
      if (call.kind !== entry.kind || call.fp !== entry.fp) diverged("The script no longer matches its journal at activity #" + entry.seq + " (" + entry.kind + ").");
      call.settled = true;
      if (entry.ok) call.resolve(entry.value); else call.reject(toError(entry.error));
    },
    syncIndex: function (i) { return journal[i].kind === "now" || journal[i].kind === "random"; },
    collect: function () {
      var requests = [];
      if (state === "running") for (var i = 0; i < calls.length; i++) {
        var c = calls[i];
        if (c && !c.settled && !bySeq[c.seq]) requests.push({ seq: c.seq, kind: c.kind, fp: c.fp, params: c.params });
      }
      return stringify({ state: fatal ? "diverged" : state, value: value, failure: failure, fatal: fatal,
        requests: requests, syncEntries: syncEntries, logs: logs, progress: progress });
    },
  };
})`;
