/* A deterministic JavaScript workload for QuickJS (libquickjs-sys 0.10.0):
 * evaluates a script that exercises the interpreter loop, objects and
 * shapes, arrays, closures, strings, regular expressions, JSON, exceptions,
 * generators, typed arrays, Map/Set and BigInt, and prints each part's
 * result. Used to compare a parallel build of quickjs.c with a stock one:
 * the output must be identical.
 *   quickjs_workload [scale]   (default scale 1) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "quickjs.h"

static const char script[] =
    "function parts(scale) {\n"
    "  const out = [];\n"
    "  let h = 0;\n"
    "  for (let i = 0; i < 2000000 * scale; i++) h = (h * 31 + (i ^ (i >>> 3))) | 0;\n"
    "  out.push('loop ' + h);\n"
    "  class Point { constructor(x, y) { this.x = x; this.y = y; }\n"
    "                add(o) { return new Point(this.x + o.x, this.y + o.y); } }\n"
    "  let p = new Point(0, 0);\n"
    "  for (let i = 0; i < 300000 * scale; i++) p = p.add(new Point(i % 7, -(i % 5)));\n"
    "  out.push('objects ' + p.x + ',' + p.y);\n"
    "  const a = [];\n"
    "  for (let i = 0; i < 200000 * scale; i++) a.push((i * 7919) % 100003);\n"
    "  a.sort((x, y) => x - y);\n"
    "  out.push('arrays ' + a.filter(x => x % 3 == 0).map(x => x * 2).reduce((s, x) => (s + x) % 1000000007, 0));\n"
    "  const counters = [];\n"
    "  for (let i = 0; i < 1000; i++) { let c = i; counters.push(() => c += 3); }\n"
    "  let cs = 0;\n"
    "  for (let r = 0; r < 200 * scale; r++) for (const f of counters) cs = (cs + f()) % 1000003;\n"
    "  out.push('closures ' + cs);\n"
    "  let s = '';\n"
    "  for (let i = 0; i < 50000 * scale; i++) s += String.fromCharCode(97 + i % 26) + (i % 10);\n"
    "  const words = s.match(/[a-m][0-4]/g).length + ':' + s.replace(/([n-z])([5-9])/g, '$2$1').slice(1000, 1020);\n"
    "  out.push('strings ' + s.length + ' ' + words + ' ' + s.split('a0').length + ' ' + s.toUpperCase().indexOf('Z9'));\n"
    "  const doc = [];\n"
    "  for (let i = 0; i < 20000 * scale; i++) doc.push({id: i, name: 'n' + i, tags: [i % 3, i % 5], ok: i % 2 == 0});\n"
    "  const back = JSON.parse(JSON.stringify(doc));\n"
    "  out.push('json ' + back.length + ' ' + back.filter(d => d.ok && d.tags[1] == 4).length + ' ' + JSON.stringify(back[12345 % back.length]));\n"
    "  let caught = 0;\n"
    "  for (let i = 0; i < 100000 * scale; i++) { try { if (i % 3 == 0) throw new RangeError('r' + i); } catch (e) { caught += e.message.length; } }\n"
    "  out.push('exceptions ' + caught);\n"
    "  function* fib() { let [x, y] = [0, 1]; for (;;) { yield x; [x, y] = [y, (x + y) % 1000000]; } }\n"
    "  let g = 0, n = 0;\n"
    "  for (const v of fib()) { g = (g + v) % 1000000007; if (++n == 200000 * scale) break; }\n"
    "  out.push('generators ' + g);\n"
    "  const f64 = new Float64Array(100000);\n"
    "  for (let r = 0; r < 10 * scale; r++) for (let i = 0; i < f64.length; i++) f64[i] = Math.sqrt(i + r) * Math.sin(i);\n"
    "  out.push('typed ' + f64.reduce((x, y) => x + y, 0).toFixed(6));\n"
    "  const m = new Map(), st = new Set();\n"
    "  for (let i = 0; i < 100000 * scale; i++) { m.set('k' + (i % 5000), i); st.add(i % 7777); }\n"
    "  let ms = 0; for (const [k, v] of m) ms = (ms + v + k.length) % 1000000007;\n"
    "  out.push('collections ' + m.size + ' ' + st.size + ' ' + ms);\n"
    "  let big = 1n;\n"
    "  for (let i = 1n; i <= 600n * BigInt(scale); i++) big *= i;\n"
    "  out.push('bigint ' + big.toString().length + ' ' + (big % 1000000007n));\n"
    "  return out.join('\\n');\n"
    "}\n";

/* Prints the pending exception of ctx to stderr; returns 1. */
static int report_exception(JSContext *ctx, const char *what) {
  JSValue err = JS_GetException(ctx);
  const char *msg = JS_ToCString(ctx, err);
  fprintf(stderr, "JavaScript error in %s: %s\n", what, msg ? msg : "(not printable)");
  JS_FreeCString(ctx, msg);
  JS_FreeValue(ctx, err);
  return 1;
}

int main(int argc, char **argv) {
  int scale = argc > 1 ? atoi(argv[1]) : 1;
  JSRuntime *rt = JS_NewRuntime();
  JSContext *ctx = rt ? JS_NewContext(rt) : NULL;
  if (!ctx) {
    fprintf(stderr, "cannot create a QuickJS runtime and context\n");
    return 1;
  }
  int status = 0;
  JSValue defined = JS_Eval(ctx, script, sizeof script - 1, "<workload>", JS_EVAL_TYPE_GLOBAL);
  if (JS_IsException(defined)) {
    status = report_exception(ctx, "the script");
  } else {
    char call[64];
    snprintf(call, sizeof call, "parts(%d)", scale);
    JSValue result = JS_Eval(ctx, call, strlen(call), "<call>", JS_EVAL_TYPE_GLOBAL);
    if (JS_IsException(result)) {
      status = report_exception(ctx, call);
    } else {
      const char *text = JS_ToCString(ctx, result);
      if (text)
        printf("%s\n", text);
      else
        status = report_exception(ctx, "converting the result");
      JS_FreeCString(ctx, text);
    }
    JS_FreeValue(ctx, result);
  }
  JS_FreeValue(ctx, defined);
  JS_FreeContext(ctx);
  JS_FreeRuntime(rt);
  return status;
}
