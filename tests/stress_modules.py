"""Random multi-function LLVM IR modules for the stress test
(tests/e2e_stress.py), deterministic from a seed.

A module is a few functions made by llvm-stress-16 (one per run, renamed,
each calling into the layer below at its entry) and a layer of our own:
functions of every linkage (external, internal, private, linkonce_odr and
weak_odr in a COMDAT, linkonce, weak, available_externally), with random
visibility, attributes (noinline, alwaysinline, optnone, cold, minsize...),
sections, alignment and prefix data; names that assembly must quote
("f-q1"); a random call graph among them (self and mutual recursion, calls
through aliases, an ifunc and function-pointer tables with !callees,
invokes with a landing pad); global variables of every linkage (external,
internal, private, common, weak, weak_odr, linkonce_odr in a COMDAT of
their own or a function's, available_externally), in explicit sections,
with several alignments, thread-locals in every model (a linkonce_odr one
in a COMDAT, a thread_local alias), declarations and extern_weak, whose
initializers refer to functions and other globals through getelementptr,
ptrtoint, add and blockaddress constant expressions; aliases (to
functions, to data with an offset, alias of alias); llvm.used and
llvm.compiler.used; llvm.global_ctors and dtors; !associated; module asm
(an absolute symbol, a symbol set to a local function, a function written
in asm) and inline asm naming a local function.

What a C front end would never make is left out: an available_externally
body (another module's definition) refers to no local of this module, and
a local that asm names is in llvm.compiler.used.

Every module has at least MIN_ENTRIES external functions that nothing
refers to and that call nothing mtpc must keep with its users (a
blockaddress-taken or asm-named function, or an alias of one), so that it
has at least that many independent units and a split into up to
MIN_ENTRIES partitions gives exactly that many.

  generate(seed, attempt=0) -> Module   (the text and what each global is)
  python3 tests/stress_modules.py SEED [ATTEMPT] > m.ll
"""
import random
import subprocess

LLVM_STRESS = "/usr/lib/llvm-16/bin/llvm-stress"
MIN_ENTRIES = 5

LAYER_SIG = "i64 (i64, ptr)"
STRESS_PARAMS = "ptr, ptr, ptr, i32, i64, i8"

# Function attribute groups (numbers fixed in the module text).
ATTRIBUTES = [
    "nounwind",
    "noinline nounwind",
    "alwaysinline nounwind",
    "inlinehint",
    "noinline optnone",
    "cold nounwind",
    "nounwind uwtable",
    "minsize optsize nounwind",
    '"frame-pointer"="all"',
]


class Global:
    """One named global of the module: kind is function, data, tls, alias,
    ifunc or declaration; linkage as written in the IR ('' for external)."""

    def __init__(self, name, kind, linkage="", sig=LAYER_SIG, size=8, constant=False, writable=True):
        self.name, self.kind, self.linkage, self.sig = name, kind, linkage, sig
        self.size, self.constant, self.writable = size, constant, writable
        self.visibility = ""
        self.comdat = None
        self.section = None
        self.flags = set()  # "entry", "blockaddress", "asm_named", "in_comdat"

    @property
    def ref(self):
        return "@" + quote(self.name)

    @property
    def local(self):
        return self.linkage in ("internal", "private")

    @property
    def defined(self):
        return self.kind not in ("declaration",)


def simple_name(name):
    """A name that assembly can use as it is."""
    return all(c.isalnum() or c in "._" for c in name)


def quote(name):
    if all(c.isalnum() or c in "._$" for c in name) and not name[0].isdigit():
        return name
    return '"%s"' % name


class Module:
    def __init__(self, seed, attempt, text, globals_):
        self.seed, self.attempt, self.text = seed, attempt, text
        self.globals = {g.name: g for g in globals_}

    def local_names(self):
        """Names of internal and private definitions (what mtpc may promote)."""
        return {g.name for g in self.globals.values() if g.local}

    def linkage_of(self, name):
        g = self.globals.get(name)
        return g.linkage if g else None

    def declared_names(self):
        """Names the module only declares (external and extern_weak
        declarations, asm-defined functions) or defines available_externally."""
        return {g.name for g in self.globals.values()
                if g.kind == "declaration" or g.linkage == "available_externally"}


def llvm_stress(seed, size):
    out = subprocess.run([LLVM_STRESS, "-seed=%d" % seed, "-size=%d" % size], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, check=True).stdout
    lines = out.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("define "))
    return lines[start:]


class Generator:
    def __init__(self, seed, attempt):
        self.seed, self.attempt = seed, attempt
        self.r = random.Random("mtpc-stress-%d-%d" % (seed, attempt))
        self.globals = []
        self.body = {}  # function name -> list of lines (definition included)
        self.metadata = []  # texts of !K = ...
        self.comdats = []
        self.module_asm = []
        self.personality = False
        self.counter = 0
        # While set, what is generated refers to no local: an
        # available_externally definition is another module's, and cannot
        # (ThinLTO imports one only with its locals promoted).
        self.no_locals = False

    # -- helpers --------------------------------------------------------
    def chance(self, p):
        return self.r.random() < p

    def fresh(self, prefix):
        self.counter += 1
        return "%%%s%d" % (prefix, self.counter)

    def md(self, text):
        self.metadata.append(text)
        return "!%d" % (len(self.metadata) - 1)

    def add(self, g):
        self.globals.append(g)
        return g

    def of(self, pred):
        return [g for g in self.globals if pred(g)]

    def pick_visibility(self, g):
        if g.local:
            return
        g.visibility = self.r.choice(["", "", "", "hidden", "protected"])
        if g.visibility == "protected" and g.linkage in ("extern_weak",):
            g.visibility = ""

    # -- the plan: which globals exist ----------------------------------
    def plan(self):
        r = self.r
        # Layer functions.
        linkages = ["", "", "", "internal", "internal", "private", "linkonce_odr", "weak_odr", "weak", "linkonce",
                    "available_externally"]
        for i in range(r.randint(4, 14)):
            name = r.choice(["f%d", "f%d", "f%d", "fn.%d", "f$%d", "f-q%d"]) % i
            g = self.add(Global(name, "function", r.choice(linkages)))
            if g.linkage in ("linkonce_odr", "weak_odr") and self.chance(0.8) or (g.linkage == "" and self.chance(0.1)):
                g.comdat = name
                self.comdats.append(name)
            self.pick_visibility(g)
        # Internal functions that inline asm will name (planned before any
        # body, so that entries never call them).
        simple = self.of(lambda g: g.kind == "function" and g.linkage == "internal" and simple_name(g.name))
        self.asm_targets = r.sample(simple, 1) if simple and self.chance(0.3) else []
        for g in self.asm_targets:
            g.flags.add("asm_named")
        # llvm-stress functions.
        for i in range(r.randint(1, 3)):
            g = self.add(Global("s%d" % i, "function", r.choice(["", "", "internal", "weak", "linkonce_odr"]),
                                sig="void (%s)" % STRESS_PARAMS))
            if g.linkage == "linkonce_odr":
                g.comdat = g.name
                self.comdats.append(g.name)
            self.pick_visibility(g)
            g.flags.add("stress")
        # A function whose blocks' addresses are in a table.
        if self.chance(0.4):
            ba = self.add(Global("ba0", "function", r.choice(["", "internal"])))
            ba.flags.add("blockaddress")
            tbl = self.add(Global("batbl0", "data", r.choice(["internal", "private", ""]), size=16, constant=True))
            tbl.flags.add("batable")
        # Entries: external, referred to by nothing.
        for i in range(MIN_ENTRIES + r.randint(0, 2)):
            g = self.add(Global("entry%d" % i, "function", ""))
            g.flags.add("entry")
            self.pick_visibility(g)
        # Declarations.
        for i in range(r.randint(0, 3)):
            g = self.add(Global("ext%d" % i, "declaration", r.choice(["", "", "extern_weak"])))
            if g.linkage == "" and self.chance(0.3):
                g.visibility = "hidden"
        for i in range(r.randint(0, 2)):
            g = self.add(Global("xvar%d" % i, "declaration", r.choice(["", "extern_weak"]), sig=None))
        # Data.
        data_linkages = ["", "", "internal", "internal", "private", "common", "weak", "weak_odr", "linkonce_odr",
                         "available_externally"]
        for i in range(r.randint(3, 12)):
            linkage = r.choice(data_linkages)
            shape = r.choice(["i64", "i64", "arr64", "arrptr", "struct", "ptr", "str", "reltable"])
            if linkage == "common":
                shape = r.choice(["i64", "arr64"])
            constant = shape in ("str", "reltable") or linkage == "available_externally" or \
                (linkage != "common" and self.chance(0.35))
            g = Global("d%d" % i, "data", linkage, sig=None, constant=constant, writable=not constant)
            g.shape = shape
            g.count = r.randint(1, 5)
            g.size = {"i64": 8, "ptr": 8, "arr64": 8 * g.count, "arrptr": 8 * g.count, "struct": 24,
                      "str": g.count + 1, "reltable": 4 * g.count}[shape]
            if linkage == "linkonce_odr":
                # Its own COMDAT, or that of a linkonce_odr function.
                hosts = [f for f in self.of(lambda f: f.kind == "function" and f.comdat and f.linkage == "linkonce_odr")]
                g.comdat = r.choice(hosts).comdat if hosts and self.chance(0.5) else g.name
                if g.comdat == g.name:
                    self.comdats.append(g.name)
            elif linkage in ("", "internal") and shape != "str" and self.chance(0.15):
                g.section = "mtpc_rw" if not constant else "mtpc_ro"
            self.add(g)
            self.pick_visibility(g)
        # Function-pointer tables (vtable-like) for indirect calls.
        for i in range(r.randint(0, 2)):
            g = Global("vt%d" % i, "data", r.choice(["", "internal", "linkonce_odr", "available_externally"]),
                       sig=None, constant=True, writable=False)
            g.shape, g.count = "vtable", r.randint(1, 4)
            g.size = 8 * g.count
            if g.linkage == "linkonce_odr":
                g.comdat = g.name
                self.comdats.append(g.name)
            self.add(g)
            self.pick_visibility(g)
        # Thread-locals.
        for i in range(r.randint(0, 3)):
            g = Global("t%d" % i, "tls", r.choice(["", "internal", "weak", "private", "linkonce_odr"]), sig=None)
            g.mode = r.choice(["", "(localdynamic)", "(initialexec)", "(localexec)"])
            if g.linkage == "linkonce_odr":
                # A C++ inline thread_local variable.
                g.comdat = g.name
                self.comdats.append(g.name)
            self.add(g)
            self.pick_visibility(g)
        if self.chance(0.3):
            g = Global("tx0", "declaration", "", sig=None)
            g.tls = r.choice(["", "(initialexec)"])
            self.add(g)

    # -- references -----------------------------------------------------
    def callable(self, g):
        """Can be called with LAYER_SIG directly."""
        return g.sig == LAYER_SIG and g.kind in ("function", "alias", "ifunc", "declaration") \
            and "entry" not in g.flags and "resolver" not in g.flags

    def addressable(self, g):
        """May appear in a global's initializer."""
        return g.kind not in ("tls", "tlsalias") and "entry" not in g.flags and "resolver" not in g.flags and \
            not (g.kind == "declaration" and getattr(g, "tls", None) is not None) and "batable" not in g.flags

    def data_ref(self):
        """A constant expression of type ptr to some global."""
        r = self.r
        g = r.choice(self.of(lambda g: self.addressable(g) and not (self.no_locals and g.local)))
        if g.kind in ("data",) and g.size > 1 and self.chance(0.4):
            return "getelementptr inbounds (i8, ptr %s, i64 %d)" % (g.ref, r.randrange(g.size))
        return g.ref

    def ptr_const(self):
        r = self.r
        x = r.random()
        if x < 0.1:
            return "null"
        if x < 0.13:
            fns = self.of(lambda g: g.kind == "function" and "entry" not in g.flags and "resolver" not in g.flags
                          and not (self.no_locals and g.local))
            if fns:
                return "no_cfi " + r.choice(fns).ref
        if x < 0.2 and self.ba_blocks() and not self.no_locals:
            ba = self.of(lambda g: "blockaddress" in g.flags)[0]
            return "blockaddress(%s, %%%s)" % (ba.ref, r.choice(self.ba_blocks()))
        return self.data_ref()

    def int_const(self):
        r = self.r
        x = r.random()
        if x < 0.5:
            return str(r.randint(-1000, 1 << 40))
        if x < 0.8:
            return "ptrtoint (ptr %s to i64)" % self.data_ref()
        return "add (i64 ptrtoint (ptr %s to i64), i64 %d)" % (self.data_ref(), r.randint(1, 64))

    def ba_blocks(self):
        return ["b0", "b1"] if self.of(lambda g: "blockaddress" in g.flags) else []

    # -- data -----------------------------------------------------------
    def data_text(self, g):
        r = self.r
        avail = g.linkage == "available_externally"
        pure = (g.section == "mtpc_ro") or avail and self.chance(0.5)
        if g.shape == "i64":
            ty, init = "i64", ("0" if g.linkage == "common" else str(r.randint(0, 99)) if pure else self.int_const())
        elif g.shape == "ptr":
            ty, init = "ptr", ("null" if pure else self.ptr_const())
        elif g.shape == "arr64":
            ty = "[%d x i64]" % g.count
            if g.linkage == "common":
                init = "zeroinitializer"
            else:
                init = "[%s]" % ", ".join("i64 " + (str(r.randint(0, 9)) if pure else self.int_const())
                                          for _ in range(g.count))
        elif g.shape == "arrptr":
            ty = "[%d x ptr]" % g.count
            init = "[%s]" % ", ".join("ptr " + ("null" if pure else self.ptr_const()) for _ in range(g.count))
        elif g.shape == "struct":
            ty = "{ ptr, i64, ptr }"
            if pure:
                init = "{ ptr null, i64 1, ptr null }"
            else:
                init = "{ ptr %s, i64 %s, ptr %s }" % (self.ptr_const(), self.int_const(), self.ptr_const())
        elif g.shape == "reltable":
            # A relative table (as clang's relative vtables): 32-bit offsets
            # from each entry to a function (through dso_local_equivalent,
            # or not) or a variable.
            ty = "[%d x i32]" % g.count
            targets = self.of(lambda f: (f.kind == "function" or f.kind == "declaration" and f.sig == LAYER_SIG
                                         and f.linkage != "extern_weak" or f.kind == "data")
                              and "entry" not in f.flags and "resolver" not in f.flags
                              and not (self.no_locals and f.local))
            elems = []
            for k in range(g.count):
                if pure or not targets:
                    elems.append("i32 0")
                    continue
                t = r.choice(targets)
                # As compilers make them: a function through
                # dso_local_equivalent, or a symbol that cannot be preempted
                # (a relative reference to a preemptible one links into a
                # shared library only if the assembler can fold it).
                if t.kind != "data" and (self.chance(0.5) or not (t.local or t.visibility)):
                    ref = "dso_local_equivalent " + t.ref
                elif t.local or t.visibility in ("hidden", "protected"):
                    ref = t.ref
                else:
                    elems.append("i32 0")
                    continue
                here = g.ref if k == 0 else \
                    "getelementptr inbounds ([%d x i32], ptr %s, i32 0, i32 %d)" % (g.count, g.ref, k)
                elems.append("i32 trunc (i64 sub (i64 ptrtoint (ptr %s to i64), i64 ptrtoint (ptr %s to i64)) to i32)"
                             % (ref, here))
            init = "[%s]" % ", ".join(elems)
        elif g.shape == "str":
            ty = "[%d x i8]" % g.size
            init = 'c"%s\\00"' % "".join(r.choice("abcxyz") for _ in range(g.size - 1))
        elif g.shape == "vtable":
            ty = "[%d x ptr]" % g.count
            targets = self.of(lambda f: self.callable(f) and f.kind in ("function", "alias")
                              and not (self.no_locals and f.local))
            init = "[%s]" % ", ".join("ptr " + (r.choice(targets).ref if targets else "null") for _ in range(g.count))
        else:
            raise AssertionError(g.shape)
        g.type = ty
        words = ["%s =" % g.ref]
        if g.linkage:
            words.append(g.linkage)
        if g.visibility:
            words.append(g.visibility)
        if g.shape == "str" and g.local:
            words.append("unnamed_addr")
        elif g.constant and self.chance(0.3):
            words.append("local_unnamed_addr")
        words.append("constant" if g.constant else "global")
        words.append("%s %s" % (ty, init))
        text = " ".join(words)
        if g.section:
            text += ', section "%s"' % g.section
        if g.comdat:
            text += ", comdat" if g.comdat == g.name else ", comdat($%s)" % quote(g.comdat)
        text += ", align %d" % (1 if g.shape == "str" else r.choice([8, 8, 8, 16, 64]))
        return text

    def tls_text(self, g):
        words = ["%s =" % g.ref]
        if g.linkage:
            words.append(g.linkage)
        if g.visibility:
            words.append(g.visibility)
        words.append("thread_local%s global i64 %d" % (g.mode, self.r.randint(0, 50)))
        return " ".join(words) + (", comdat" if g.comdat else "") + ", align 8"

    # -- aliases, ifunc, ctors -------------------------------------------
    def plan_aliases(self):
        r = self.r
        aliasable = self.of(lambda g: g.kind == "function" and g.sig == LAYER_SIG and not g.comdat
                            and g.linkage in ("", "internal", "private", "weak", "weak_odr")
                            and "entry" not in g.flags)
        data = self.of(lambda g: g.kind == "data" and not g.comdat and g.linkage in ("", "internal", "weak")
                       and g.size >= 16 and "batable" not in g.flags)
        texts = []
        for i in range(r.randint(0, 3)):
            linkage = r.choice(["", "", "internal", "private", "weak", "weak_odr", "linkonce_odr"])
            earlier = self.of(lambda g: g.kind == "alias" and g.sig == LAYER_SIG
                              and g.linkage in ("", "internal", "private"))
            if data and self.chance(0.3):
                target = r.choice(data)
                a = Global("a%d" % i, "alias", linkage, sig=None)
                aliasee = "i64, getelementptr (i8, ptr %s, i64 8)" % target.ref if self.chance(0.6) \
                    else "i64, ptr %s" % target.ref
            elif aliasable:
                target = r.choice(earlier) if earlier and self.chance(0.3) else r.choice(aliasable)
                a = Global("a%d" % i, "alias", linkage)
                a.target = target
                aliasee = "%s, ptr %s" % (LAYER_SIG, target.ref)
            else:
                continue
            self.pick_visibility(a)
            words = [a.ref, "="] + [w for w in (a.linkage, a.visibility) if w] + ["alias", aliasee]
            texts.append(" ".join(words))
            self.add(a)
        tls = self.of(lambda g: g.kind == "tls" and g.linkage in ("", "internal"))
        if tls and self.chance(0.25):
            # An alias of a thread-local variable (thread_local itself).
            a = Global("ta0", "tlsalias", r.choice(["", "internal", "weak"]), sig=None)
            self.pick_visibility(a)
            a.target = r.choice(tls)
            words = [a.ref, "="] + [w for w in (a.linkage, a.visibility) if w] + \
                ["thread_local alias i64, ptr %s" % a.target.ref]
            texts.append(" ".join(words))
            self.add(a)
        return texts

    def plan_ifunc(self):
        targets = self.of(lambda g: g.kind == "function" and g.sig == LAYER_SIG and "entry" not in g.flags
                          and g.linkage != "available_externally")
        if not targets or not self.chance(0.3):
            return []
        res = self.add(Global("res0", "function", self.r.choice(["internal", ""]), sig="ptr ()"))
        res.flags.add("resolver")
        res.target = self.r.choice(targets)
        ifunc = self.add(Global("ifn0", "ifunc", ""))
        return ["%s = ifunc %s, ptr %s" % (ifunc.ref, LAYER_SIG, res.ref)]

    def plan_ctors(self):
        r = self.r
        out = []
        for which in ("ctors", "dtors"):
            if not self.chance(0.35):
                continue
            entries = []
            for i in range(r.randint(1, 2)):
                c = self.add(Global("%s%d" % (which[:-1], i), "function", "internal", sig="void ()"))
                c.flags.add("ctor")
                data = self.of(lambda g: g.kind == "data" and g.linkage != "available_externally")
                assoc = r.choice(data).ref if data and self.chance(0.3) else "null"
                entries.append("{ i32, ptr, ptr } { i32 %d, ptr %s, ptr %s }" % (r.choice([65535, 101, 200]), c.ref, assoc))
            out.append("@llvm.global_%s = appending global [%d x { i32, ptr, ptr }] [%s]"
                       % (which, len(entries), ", ".join(entries)))
        return out

    # -- function bodies --------------------------------------------------
    def aliasee(self, g):
        """The function an alias (of aliases) ends at; g if not an alias."""
        while getattr(g, "target", None) is not None and g.kind == "alias":
            g = g.target
        return g

    def call_targets(self, caller):
        targets = self.of(self.callable)
        if "entry" in caller.flags:
            # An entry stays a unit of its own: it calls plain functions only.
            # (Nor an alias of an asm-named local: mtpc keeps the users of
            # such an alias with the local.)
            targets = [g for g in targets if not self.aliasee(g).flags & {"blockaddress", "asm_named"}]
        return targets

    def layer_body(self, f):
        r = self.r
        lines = []
        vals = ["%x"]
        steps = r.choice([3, 6, 10, 20, 40, 90])
        nl = self.no_locals

        def usable(gs):
            return [g for g in gs if not (nl and g.local)]

        targets = usable(self.call_targets(f))
        stress = usable(self.of(lambda g: "stress" in g.flags))
        loadable = usable(self.of(lambda g: g.kind in ("data", "tls", "tlsalias") and g.size >= 8 and "batable" not in g.flags
                                  or g.kind == "declaration" and g.sig is None))
        storable = [g for g in loadable if g.writable and not getattr(g, "constant", False)
                    and g.linkage != "available_externally"]
        vtables = usable(self.of(lambda g: getattr(g, "shape", None) == "vtable"))
        locals_for_asm = [] if nl else [g for g in self.asm_targets if g is not f]
        blk = 0

        def v():
            return r.choice(vals[-6:])

        for _ in range(steps):
            x = r.random()
            if x < 0.45:
                n = self.fresh("v")
                op = r.choice(["add", "mul", "xor", "sub", "shl", "and", "or", "lshr"])
                c = r.randint(1, 63) if op in ("shl", "lshr") else r.randint(-99, 99)
                lines.append("  %s = %s i64 %s, %d" % (n, op, v(), c))
                vals.append(n)
            elif x < 0.62 and targets:
                t = r.choice(targets)
                n = self.fresh("c")
                if self.personality and "personality" in f.flags and self.chance(0.5):
                    ok, lp = "ok%d" % blk, "lp%d" % blk
                    blk += 1
                    lines.append("  %s = invoke i64 %s(i64 %s, ptr %%p) to label %%%s unwind label %%%s"
                                 % (n, t.ref, v(), ok, lp))
                    lines.append("%s:" % lp)
                    lines.append("  %%lpv%d = landingpad { ptr, i32 } cleanup" % blk)
                    lines.append("  resume { ptr, i32 } %%lpv%d" % blk)
                    lines.append("%s:" % ok)
                else:
                    lines.append("  %s = call i64 %s(i64 %s, ptr %%p)" % (n, t.ref, v()))
                vals.append(n)
            elif x < 0.72 and loadable:
                g = r.choice(loadable)
                n = self.fresh("l")
                lines.append("  %s = load i64, ptr %s, align 8" % (n, g.ref))
                vals.append(n)
            elif x < 0.78 and storable:
                lines.append("  store i64 %s, ptr %s, align 8" % (v(), r.choice(storable).ref))
            elif x < 0.83 and stress:
                s = r.choice(stress)
                lines.append("  call void %s(ptr %%p, ptr %%p, ptr %%p, i32 %d, i64 %s, i8 %d)"
                             % (s.ref, r.randint(0, 9), v(), r.randint(0, 9)))
            elif x < 0.87 and vtables:
                t = r.choice(vtables)
                slot, fp, n = self.fresh("slot"), self.fresh("fp"), self.fresh("ic")
                lines.append("  %s = getelementptr inbounds [%d x ptr], ptr %s, i64 0, i64 %d"
                             % (slot, t.count, t.ref, r.randrange(t.count)))
                lines.append("  %s = load ptr, ptr %s, align 8" % (fp, slot))
                callees = usable(self.of(lambda g: g.kind == "function" and g.sig == LAYER_SIG
                                         and "entry" not in g.flags))
                if "entry" in f.flags:
                    callees = [g for g in callees if not g.flags & {"blockaddress", "asm_named"}]
                mdref = ""
                if callees and self.chance(0.7):
                    chosen = r.sample(callees, min(len(callees), r.randint(1, 3)))
                    mdref = ", !callees " + self.md("!{%s}" % ", ".join("ptr " + c.ref for c in chosen))
                lines.append("  %s = call i64 %s(i64 %s, ptr %%p)%s" % (n, fp, v(), mdref))
                vals.append(n)
            elif x < 0.9 and "entry" not in f.flags and self.of(lambda g: "blockaddress" in g.flags) and \
                    "blockaddress" not in f.flags and not nl:
                tbl = self.of(lambda g: "batable" in g.flags)[0]
                n = self.fresh("bt")
                lines.append("  %s = load ptr, ptr %s, align 8" % (n, tbl.ref))
                n2 = self.fresh("bti")
                lines.append("  %s = ptrtoint ptr %s to i64" % (n2, n))
                vals.append(n2)
            elif x < 0.92 and locals_for_asm and "entry" not in f.flags:
                t = r.choice(locals_for_asm)
                lines.append('  call void asm sideeffect "leaq %s(%%rip), %%rax", "~{rax},~{dirflag},~{fpsr},~{flags}"()'
                             % t.name)
            else:
                # A diamond joined by a phi.
                c, a, b, p = self.fresh("cmp"), self.fresh("ta"), self.fresh("eb"), self.fresh("phi")
                tb, eb, jb = "t%d" % blk, "e%d" % blk, "j%d" % blk
                blk += 1
                lines.append("  %s = icmp slt i64 %s, %d" % (c, v(), r.randint(-50, 50)))
                lines.append("  br i1 %s, label %%%s, label %%%s" % (c, tb, eb))
                lines.append("%s:" % tb)
                lines.append("  %s = add i64 %s, %d" % (a, v(), r.randint(1, 9)))
                lines.append("  br label %%%s" % jb)
                lines.append("%s:" % eb)
                lines.append("  %s = mul i64 %s, %d" % (b, v(), r.randint(2, 9)))
                lines.append("  br label %%%s" % jb)
                lines.append("%s:" % jb)
                lines.append("  %s = phi i64 [ %s, %%%s ], [ %s, %%%s ]" % (p, a, tb, b, eb))
                vals.append(p)
        lines.append("  ret i64 %s" % vals[-1])
        return lines

    def header(self, f, sig_ret, params):
        words = ["define"]
        if f.linkage:
            words.append(f.linkage)
        if f.visibility:
            words.append(f.visibility)
        words.append("%s %s(%s)" % (sig_ret, f.ref, params))
        if self.chance(0.2) and not f.flags & {"ctor", "resolver"}:
            words.append(self.r.choice(["unnamed_addr", "local_unnamed_addr"]))
        attrs = self.r.randrange(len(ATTRIBUTES))
        words.append("#%d" % attrs)
        if f.section:
            words.append('section "%s"' % f.section)
        if f.comdat:
            words.append("comdat" if f.comdat == f.name else "comdat($%s)" % quote(f.comdat))
        if self.chance(0.1):
            words.append("align 32")
        if self.chance(0.05) and f.linkage != "available_externally":
            words.append("prefix i32 %d" % self.r.randint(0, 1000))
        if "personality" in f.flags:
            words.append("personality ptr @__gxx_personality_v0")
        return " ".join(words) + " {"

    def function_text(self, f):
        r = self.r
        if "stress" in f.flags:
            lines = list(self.stress_lines[f.name])
            lines[0] = self.header(f, "void", "ptr %0, ptr %1, ptr %2, i32 %3, i64 %4, i8 %5")
            # Call into the layer at the function's entry.
            calls = []
            targets = [t for t in self.call_targets(f) if t is not f]
            for k in range(r.randint(0, 3)):
                if targets:
                    calls.append("  %%mtpc.c%d = call i64 %s(i64 %%4, ptr %%0)" % (k, r.choice(targets).ref))
            entry = lines.index("BB:")
            return lines[:entry + 1] + calls + lines[entry + 1:]
        if "resolver" in f.flags:
            return [self.header(f, "ptr", ""), "  ret ptr %s" % f.target.ref, "}"]
        if "ctor" in f.flags:
            lines = [self.header(f, "void", ""), "entry:"]
            targets = self.call_targets(f)
            for k in range(r.randint(1, 3)):
                if targets:
                    lines.append("  %%c%d = call i64 %s(i64 %d, ptr null)" % (k, r.choice(targets).ref, k))
            return lines + ["  ret void", "}"]
        if "blockaddress" in f.flags:
            tbl = self.of(lambda g: "batable" in g.flags)[0]
            return [self.header(f, "i64", "i64 %x, ptr %p"), "entry:",
                    "  %i = and i64 %x, 1",
                    "  %%slot = getelementptr inbounds [2 x ptr], ptr %s, i64 0, i64 %%i" % tbl.ref,
                    "  %t = load ptr, ptr %slot, align 8",
                    "  indirectbr ptr %t, [label %b0, label %b1]",
                    "b0:", "  %r0 = add i64 %x, 7", "  ret i64 %r0",
                    "b1:", "  %r1 = mul i64 %x, 3", "  ret i64 %r1", "}"]
        if self.personality and "entry" not in f.flags and self.chance(0.3):
            f.flags.add("personality")
        self.no_locals = f.linkage == "available_externally"
        body = self.layer_body(f)
        self.no_locals = False
        return [self.header(f, "i64", "i64 %x, ptr %p"), "entry:"] + body + ["}"]

    # -- the module ---------------------------------------------------------
    def generate(self):
        r = self.r
        self.plan()
        self.personality = self.chance(0.3)
        for f in self.of(lambda g: g.kind == "function" and "entry" not in g.flags and not g.local):
            if self.chance(0.05) and not f.comdat:
                f.section = ".text.mtpc_hot"
        self.stress_lines = {}
        for i, f in enumerate(self.of(lambda g: "stress" in g.flags)):
            self.stress_lines[f.name] = llvm_stress((self.seed * 131 + self.attempt * 7 + i) % (1 << 31),
                                                    r.choice([10, 30, 60, 120, 250]))
        alias_texts = self.plan_aliases()
        ifunc_texts = self.plan_ifunc()
        ctor_texts = self.plan_ctors()
        # Module asm: an absolute symbol, a symbol set to a local function,
        # a function written in asm that the module declares and calls.
        if self.chance(0.15):
            self.module_asm += ["\\09.globl\\09mtpc_abs", "\\09.set\\09mtpc_abs, 42"]
        local_fns = self.of(lambda g: g.kind == "function" and g.linkage == "internal" and g.sig == LAYER_SIG
                            and "entry" not in g.flags and simple_name(g.name))
        if local_fns and self.chance(0.1):
            t = r.choice(local_fns)
            t.flags.add("asm_named")
            self.module_asm += ["\\09.globl\\09mtpc_asm_alias", "\\09.set\\09mtpc_asm_alias, %s" % t.name]
        if self.chance(0.1):
            self.module_asm += ["\\09.text", "\\09.globl\\09asm_fn", "\\09.type\\09asm_fn,@function",
                                "asm_fn:", "\\09movq\\09%rdi, %rax", "\\09retq"]
            self.add(Global("asm_fn", "declaration", ""))

        out = ['source_filename = "stress-%d.ll"' % self.seed,
               'target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"',
               'target triple = "x86_64-pc-linux-gnu"', ""]
        out += ['module asm "%s"' % a for a in self.module_asm]
        out += ["$%s = comdat any" % quote(c) for c in sorted(set(self.comdats))]
        out.append("")
        for g in self.globals:
            if g.kind == "data":
                if "batable" in g.flags:
                    ba = self.of(lambda x: "blockaddress" in x.flags)[0]
                    g.type = "[2 x ptr]"
                    words = [g.ref, "="] + [w for w in (g.linkage, g.visibility) if w]
                    out.append(" ".join(words) + " constant [2 x ptr] [ptr blockaddress(%s, %%b0), ptr blockaddress(%s, %%b1)], align 8"
                               % (ba.ref, ba.ref))
                else:
                    self.no_locals = g.linkage == "available_externally"
                    out.append(self.data_text(g))
                    self.no_locals = False
            elif g.kind == "tls":
                out.append(self.tls_text(g))
            elif g.kind == "declaration" and g.sig is None:
                tls = getattr(g, "tls", None)
                kw = "extern_weak" if g.linkage == "extern_weak" else "external"
                out.append("%s = %s %sglobal i64, align 8" % (g.ref, kw, "" if tls is None else "thread_local%s " % tls))
        # !associated: a variable kept with a function.
        used_extra = []
        fns = self.of(lambda g: g.kind == "function" and g.linkage != "available_externally" and "entry" not in g.flags)
        if fns and self.chance(0.15):
            m = self.md("!{ptr %s}" % r.choice(fns).ref)
            out.append('@assoc0 = internal global i64 1, section "mtpc_assoc", align 8, !associated %s' % m)
            used_extra.append("@assoc0")
        out += alias_texts + ifunc_texts + ctor_texts
        out.append("")
        for g in self.globals:
            if g.kind == "function":
                out += self.function_text(g)
                out.append("")
        for g in self.globals:
            if g.kind == "declaration" and g.sig == LAYER_SIG:
                words = ["declare"] + [w for w in (g.linkage, g.visibility) if w] + ["i64 %s(i64, ptr)" % g.ref]
                out.append(" ".join(words))
        if self.personality:
            out.append("declare i32 @__gxx_personality_v0(...)")
        # llvm.used and llvm.compiler.used: some definitions.
        defs = self.of(lambda g: g.kind in ("function", "data") and g.linkage != "available_externally"
                       and "entry" not in g.flags)
        for name in ("llvm.used", "llvm.compiler.used"):
            members = r.sample(defs, min(len(defs), r.randint(0, 3))) if self.chance(0.4) else []
            if name == "llvm.compiler.used":
                # Code names a local in asm only with it marked used (C's
                # __attribute__((used))): else the optimizer may delete it.
                members = [m for m in members if "asm_named" not in m.flags] + \
                    self.of(lambda g: "asm_named" in g.flags)
            refs = [m.ref for m in members] + (used_extra if name == "llvm.compiler.used" else [])
            if refs:
                out.append('@%s = appending global [%d x ptr] [%s], section "llvm.metadata"'
                           % (name, len(refs), ", ".join("ptr " + x for x in refs)))
        out.append("")
        out += ["attributes #%d = { %s }" % (i, a) for i, a in enumerate(ATTRIBUTES)]
        out += ["!%d = %s" % (i, m) for i, m in enumerate(self.metadata)]
        return Module(self.seed, self.attempt, "\n".join(out) + "\n", self.globals)


def generate(seed, attempt=0):
    return Generator(seed, attempt).generate()


if __name__ == "__main__":
    import sys
    sys.stdout.write(generate(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0).text)
