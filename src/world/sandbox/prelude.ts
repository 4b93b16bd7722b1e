/**
 * Script evaluated in every fresh context before the user's code. It receives the two native
 * bridge functions as arguments (they never become globals), builds the frozen API objects and
 * `console`, and returns helpers the host uses to encode the result and describe errors. It
 * captures the builtins it needs first, so a script that tampers with `JSON` or prototypes only
 * breaks its own run. With a clock (`{now, seed}` as JSON, else `null`), `Date.now()`, `new Date()` and
 * `Date()` all show the instant `now` and `Math.random` is a seeded generator, so a second run of
 * the same script on the same data does the same thing.
 */
export const PRELUDE = `(function (call, log, specJson, valuesJson, clockJson) {
  "use strict";
  var parse = JSON.parse, stringify = JSON.stringify, freeze = Object.freeze, keys = Object.keys;
  var defineProperty = Object.defineProperty, ErrorCtor = Error, toStr = String, toNum = Number;
  var isSafe = Number.isSafeInteger, G = globalThis;
  var CLIP = 2000;

  function replacer(k, v) {
    if (typeof v !== "bigint") return v;
    var n = toNum(v);
    return isSafe(n) ? n : toStr(v);
  }
  function prop(o, k, v) {
    defineProperty(o, k, { value: v, enumerable: true, writable: false, configurable: false });
  }
  function invoke(name, args) {
    var out = parse(call(name, stringify(args, replacer)));
    if (out.ok) return out.value;
    var e = new ErrorCtor(out.message);
    defineProperty(e, "code", { value: out.code, enumerable: true });
    if (out.details !== undefined) defineProperty(e, "details", { value: out.details, enumerable: true });
    if (out.fields !== undefined) defineProperty(e, "fields", { value: out.fields, enumerable: true });
    throw e;
  }
  function leaf(path) {
    return function () {
      var args = [];
      for (var i = 0; i < arguments.length; i++) args[i] = arguments[i];
      // JSON would turn omitted trailing arguments into nulls.
      while (args.length && args[args.length - 1] === undefined) args.length--;
      return invoke(path, args);
    };
  }
  function build(node, prefix) {
    var obj = {}, ks = keys(node);
    for (var i = 0; i < ks.length; i++) {
      var path = prefix ? prefix + "." + ks[i] : ks[i];
      prop(obj, ks[i], node[ks[i]] === 1 ? leaf(path) : build(node[ks[i]], path));
    }
    return freeze(obj);
  }
  function deepFreeze(v) {
    if (v && typeof v === "object") {
      var ks = keys(v);
      for (var i = 0; i < ks.length; i++) deepFreeze(v[ks[i]]);
      freeze(v);
    }
    return v;
  }
  function show(v) {
    if (typeof v === "string") return v;
    try {
      var j = stringify(v, replacer);
      return j === undefined ? toStr(v) : j;
    } catch (e) {
      return toStr(v);
    }
  }
  function logger(level) {
    return function () {
      var parts = [];
      for (var i = 0; i < arguments.length; i++) parts[i] = show(arguments[i]);
      log(level, parts.join(" "));
    };
  }
  function clip(s) {
    s = toStr(s);
    return s.length > CLIP ? s.slice(0, CLIP) + "…" : s;
  }

  function hidden(o, k, v) {
    defineProperty(o, k, { value: v, enumerable: false, writable: true, configurable: true });
  }
  function freezeClock(clock) {
    var RealDate = Date, construct = Reflect.construct, slice = Array.prototype.slice, imul = Math.imul;
    var fixed = clock.now;
    var FixedDate = function Date() {
      if (new.target === undefined) return toStr(new RealDate(fixed));
      return construct(RealDate, arguments.length ? slice.call(arguments) : [fixed], new.target);
    };
    FixedDate.prototype = RealDate.prototype;
    hidden(RealDate.prototype, "constructor", FixedDate);
    hidden(FixedDate, "now", function now() { return fixed; });
    hidden(FixedDate, "parse", RealDate.parse);
    hidden(FixedDate, "UTC", RealDate.UTC);
    hidden(G, "Date", FixedDate);
    // mulberry32: small, fast and good enough for a script's dice.
    var state = clock.seed | 0;
    hidden(Math, "random", function random() {
      state = (state + 0x6d2b79f5) | 0;
      var t = imul(state ^ (state >>> 15), 1 | state);
      t = (t + imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    });
  }

  var clock = parse(clockJson);
  if (clock) freezeClock(clock);
  var spec = parse(specJson), names = keys(spec);
  for (var i = 0; i < names.length; i++) prop(G, names[i], build(spec[names[i]], names[i]));
  var values = parse(valuesJson), vnames = keys(values);
  for (var j = 0; j < vnames.length; j++) prop(G, vnames[j], deepFreeze(values[vnames[j]]));
  prop(G, "console", freeze({
    log: logger("log"), info: logger("info"), debug: logger("debug"),
    warn: logger("warn"), error: logger("error"),
  }));

  return {
    encode: function (v) {
      if (v === undefined) return "u";
      if (typeof v === "string") return "s" + v;
      var j = stringify(v, replacer);
      return j === undefined ? "u" : "j" + j;
    },
    describe: function (e) {
      if (e === null || (typeof e !== "object" && typeof e !== "function")) {
        return stringify({ name: "thrown value", message: clip(show(e)) });
      }
      var d = {
        name: e.name === undefined ? "thrown value" : clip(e.name),
        message: e.message === undefined ? clip(show(e)) : clip(e.message),
        stack: e.stack === undefined ? "" : clip(e.stack),
      };
      if (typeof e.lineNumber === "number") d.lineNumber = e.lineNumber;
      if (typeof e.code === "string") d.code = e.code;
      if (e.details !== undefined) d.details = e.details;
      if (e.fields !== undefined) d.fields = e.fields;
      var out = stringify(d, replacer);
      return out.length > 4 * CLIP ? stringify({ name: d.name, message: d.message, stack: d.stack }) : out;
    },
  };
})`;
