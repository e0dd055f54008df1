// host_pipeline.cpp - mtpc-parallel in the host's pass pipeline, and the
// pipeline each partition runs, built from the host's own PassBuilder.
//
// Registration. mtpc registers with each host PassBuilder (once per compile
// in clang, once per ThinLTO backend and once per full LTO link in lld): automatic mode at PipelineStart
// (clang's non-LTO compiles, opt's default<On>), where PipelineStart does
// not fire at PipelineEarlySimplification (lld's ThinLTO backends), and at
// FullLinkTimeOptimizationLast (lld's full LTO); explicit mode from pipeline
// text (mtpc-parallel<...>).
//
// Full LTO. The full LTO pipeline (buildLTODefaultPipeline) has no extension
// point between its whole-program part (global DCE, IPSCCP, function
// attributes, whole-program devirtualization, global optimization, ...) and
// the rest, so mtpc cuts it, by pass, once it is built: mtpc's
// FullLinkTimeOptimizationLast callback (kept last) leaves the host's passes
// up to the dead argument elimination before the inliner, the last
// whole-program pass, then adds mtpc's pass, which holds the rest. Before a
// split, mtpc's pass runs copies of the rest's type-test lowering (CFI, what
// devirtualization left) on the whole module; each partition then runs the
// rest, built anew without its whole-program part; a module not split runs
// the rest whole. Nothing follows mtpc's pass but annotation remarks, so
// full LTO needs no pass that restores the module (below).
//
// mtpc's pass comes last at its extension point. Plugins register before the
// host does, so callbacks registered after mtpc's at the same point (clang's
// GCOV and InstrProfiling lowering at PipelineStart, later plugins' passes)
// would otherwise run after the split, on a module that holds no code. When
// the host builds its pipeline, mtpc's callback calls those later callbacks
// itself, before adding its pass, and parks them (an empty callback in their
// place) until mtpc's next callback in the same build puts them back. Each
// runs once, on the whole module, as without mtpc.
//
// A partition's pipeline. Everything after mtpc's extension point: the
// host's builder builds its default pipeline with mtpc's extension point's
// callbacks replaced by one that drops what was built up to there (it ran on
// the whole module, before the split). So a partition runs every callback
// the host and other plugins registered at every later extension point
// (clang's sanitizers at OptimizerLast, say). mtpc's own callbacks add
// nothing while it builds. Explicit mode runs the whole default pipeline.
// Pipelines are built on the host's thread, while mtpc's pass runs (the
// builder and the host objects its callbacks captured are alive then), and
// each is run on one worker thread with analysis managers of its own: the
// host's instrumentation and target machine are replaced by the partition's
// own; the host's library info and alias analysis are copied.
//
// The end of the host's pipeline. After the split the host's pipeline goes
// on with a module whose only content is the merged assembly; passes that add
// module-wide things whatever the module holds (a sanitizer's constructor)
// would add them a second time. The last OptimizerLast callback, mtpc's
// (registered when the host first builds, and kept last), ends the build: it
// puts the module back as that build's mtpc pass left it.
//
// The split of the code generation. Where mtpc's pass left the module whole
// only because the machine's cores were busy, the same last callback first
// adds a second mtpc pass, which may split the optimized module (every
// OptimizerLast callback of the host and other plugins has run on it) into
// partitions that only generate code, if a core is free by then. The host's
// pipeline still has passes after its OptimizerLast callbacks (global DCE,
// constant merging, ...: pipelineTail); once that pass has decided to split,
// it runs them on the whole module first, as the host would, and leaves
// them nothing to do after it; but annotation remarks, which only report
// on each function, run in the partitions (a module left whole after all
// reports them once, from the host's run).
#include "shim.h"
#include "partition_kit.h"

#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Transforms/IPO/ConstantMerge.h"
#include "llvm/Transforms/IPO/CrossDSOCFI.h"
#include "llvm/Transforms/IPO/DeadArgumentElimination.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/IPO/GlobalSplit.h"
#include "llvm/Transforms/IPO/Inliner.h"
#include "llvm/Transforms/IPO/SCCP.h"
#include "llvm/Transforms/IPO/WholeProgramDevirt.h"
#include "llvm/Transforms/IPO/LowerTypeTests.h"
#include "llvm/Transforms/Instrumentation/CGProfile.h"
#include "llvm/Transforms/Scalar/AnnotationRemarks.h"
#include "llvm/Transforms/Utils/RelLookupTableConverter.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

extern "C" {
// The parameters of one mtpc-parallel pass (mirrored in Rust, host.rs).
struct MtpcParallelRequest {
  int32_t Automatic; // 1: from an extension point; the environment adjusts it
  int32_t Level;     // 0-5: O0 O1 O2 O3 Os Oz
  int32_t Phase;     // 0: per-module pipeline, 1: ThinLTO post-link, 2: full LTO after its whole-program part
  uint32_t Partitions; // 0: one per thread
  uint64_t Threads;    // 0: the pool's size
  uint64_t MinSize;
  int32_t CostModel; // 1: the cost model decides whether and how to split
  int32_t AfterOptimization; // 1: the host's pipeline optimized the module; partitions only generate code
};

// Implemented in Rust (host.rs). Runs mtpc-parallel on M; Run is the
// mtpc::PassRun the mtpc_run_* functions take. Returns true if M changed.
bool mtpc_rs_run_parallel(const MtpcParallelRequest *Request, LLVMModuleRef M, void *Run);
// Parses pipeline text: 0 if it is not mtpc-parallel, 1 if it is (*Request
// filled), 2 if its parameters are wrong (reported).
int mtpc_rs_parse_parallel(const char *Text, size_t Len, MtpcParallelRequest *Request);
// The same for mtpc-split (its parameters are parsed again when it runs).
int mtpc_rs_parse_split(const char *Text, size_t Len);
// Runs the mtpc-split that pipeline text Text asks for on M; true if every
// analysis is preserved (errors end the process, as LLVM's tools do).
bool mtpc_rs_run_split(const char *Text, size_t Len, LLVMModuleRef M);
}

namespace mtpc {
using FunctionAnalysisPassMap =
    DenseMap<AnalysisKey *, std::unique_ptr<AnalysisPassConcept<Function, FunctionAnalysisManager::Invalidator>>>;
using BaselineLibraryInfoImpl = std::optional<TargetLibraryInfoImpl>;
using ModulePassList = std::vector<std::unique_ptr<detail::PassConcept<Module, ModuleAnalysisManager>>>;
} // namespace mtpc
// The PassBuilder's callback lists, a function analysis manager's registered
// analyses and the library info analysis's baseline are private (16 to 22),
// a pass manager's passes protected.
MTPC_EXPOSE_PRIVATE(PipelineStartCallbacks, mtpc::ModuleEPCallbacks, PassBuilder, PipelineStartEPCallbacks);
MTPC_EXPOSE_PRIVATE(EarlySimplificationCallbacks, mtpc::PhaseEPCallbacks, PassBuilder,
                    PipelineEarlySimplificationEPCallbacks);
MTPC_EXPOSE_PRIVATE(OptimizerLastCallbacks, mtpc::PhaseEPCallbacks, PassBuilder, OptimizerLastEPCallbacks);
MTPC_EXPOSE_PRIVATE(FullLtoLastCallbacks, mtpc::ModuleEPCallbacks, PassBuilder, FullLinkTimeOptimizationLastEPCallbacks);
MTPC_EXPOSE_PRIVATE(ModulePasses, mtpc::ModulePassList, ModulePassManager, Passes);
MTPC_EXPOSE_PRIVATE(FunctionAnalysisPasses, mtpc::FunctionAnalysisPassMap, FunctionAnalysisManager, AnalysisPasses);
MTPC_EXPOSE_PRIVATE(BaselineLibraryInfo, mtpc::BaselineLibraryInfoImpl, TargetLibraryAnalysis, BaselineInfoImpl);

namespace {

// What a partition runs before its code generation: the pipeline of the
// host's phase after mtpc's extension point, or, for a module the host's
// pipeline has optimized, only what of its last passes reports
// (CodeGenerationOnly: codeGenerationPipeline).
enum class Phase { PerModule = 0, ThinLtoPostLink = 1, FullLtoPostLink = 2, CodeGenerationOnly = 3 };

// mtpc's numbering of optimization levels (MtpcParallelRequest, the Rust side).
const OptimizationLevel Levels[] = {OptimizationLevel::O0, OptimizationLevel::O1, OptimizationLevel::O2,
                                    OptimizationLevel::O3, OptimizationLevel::Os, OptimizationLevel::Oz};

OptimizationLevel optimizationLevel(int Level) { return Levels[Level < 0 || Level > 5 ? 2 : Level]; }

int levelNumber(OptimizationLevel L) {
  const OptimizationLevel *It = std::find(std::begin(Levels), std::end(Levels), L);
  return It == std::end(Levels) ? 2 : int(It - std::begin(Levels));
}

Phase phaseOf(int P) { return P >= 1 && P <= 3 ? Phase(P) : Phase::PerModule; }

// How mtpc may run a pass of the host's pipeline after its OptimizerLast
// callbacks (the passes of LLVM 16 to 22's pipelines there, but for those
// options add: -fmerge-functions, hot/cold splitting, the IR outliner).
enum class TailPass {
  // Changes nothing when it runs a second time on what it left: mtpc runs
  // it on the whole module ahead of the host, which then runs it again
  // (but the call graph profile pass, which would record its flag twice:
  // mtpc erases what its own run recorded before the host's runs).
  RunsTwiceAlike,
  // Changes nothing, and reports on each function (annotation remarks;
  // last, as in LLVM 16 to 22): each partition runs it on its own
  // functions, the host once more on what is left of the module (nothing,
  // once it is split).
  ReportsOnly,
  Unknown,
};

TailPass tailPassKind(detail::PassConcept<Module, ModuleAnalysisManager> &Pass) {
  static const StringRef Idempotent[] = {GlobalDCEPass::name(), ConstantMergePass::name(), CGProfilePass::name(),
                                         RelLookupTableConverterPass::name()};
  if (llvm::is_contained(Idempotent, Pass.name()))
    return TailPass::RunsTwiceAlike;
  std::string Text;
  raw_string_ostream OS(Text);
  Pass.printPipeline(OS, [](StringRef ClassName) { return ClassName; });
  return OS.str() == "function(" + AnnotationRemarksPass::name().str() + ")" ? TailPass::ReportsOnly : TailPass::Unknown;
}

// What a partition that only generates code runs: what of the host's last
// passes only reports (the rest ran on the whole module).
ModulePassManager codeGenerationPipeline(bool AnnotationRemarks) {
  ModulePassManager MPM;
  if (AnnotationRemarks)
    MPM.addPass(createModuleToFunctionPassAdaptor(AnnotationRemarksPass()));
  return MPM;
}

// The host's last passes as mtpc runs them (HostPipeline::pipelineTail).
struct PipelineTail {
  // On the whole module, before the split.
  ModulePassManager AheadOfHost;
  // In each partition (annotation remarks; see TailPass::ReportsOnly).
  bool AnnotationRemarks = false;
};

// A full LTO pipeline after its whole-program part (see the file's header).
struct LtoPipelineRest {
  // Copies of the rest's type-test lowering, for the whole module before a
  // split (with the host's summary: what the link exports to ThinLTO).
  ModulePassManager WholeProgramTail;
  // Everything after the whole-program part: each partition's pipeline, or
  // the whole module's if it is not split. Its type-test lowering is
  // skipped once WholeProgramTail has run: it must not run twice on a
  // module (a second run lowers the branch funnels of whole-program
  // devirtualization again, from what the first left), nor on a partition.
  ModulePassManager Rest;
  std::shared_ptr<bool> TypeTestsLowered = std::make_shared<bool>(false);
  // FullLinkTimeOptimizationLast callbacks of other plugins, whose passes
  // are in Rest: passes that may need the whole program.
  size_t ForeignLastCallbacks = 0;
};

// The type-test lowering in LtoPipelineRest::Rest.
struct TypeTestLoweringUnlessDone : PassInfoMixin<TypeTestLoweringUnlessDone> {
  TypeTestLoweringUnlessDone(LowerTypeTestsPass Pass, std::shared_ptr<bool> Done)
      : Pass(std::move(Pass)), Done(std::move(Done)) {}
  LowerTypeTestsPass Pass;
  std::shared_ptr<bool> Done;
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    return *Done ? PreservedAnalyses::all() : Pass.run(M, MAM);
  }
  static bool isRequired() { return true; }
};

// Cuts MPM, a full LTO pipeline, after the dead argument elimination that
// precedes its inliner: MPM keeps the whole-program part, the rest is
// returned. Null if MPM has no inliner (-O0, -O1: no optimization after the
// whole-program part) or no such pass before it, or if a whole-program pass
// comes after it (a pipeline mtpc does not know).
std::shared_ptr<LtoPipelineRest> cutLtoPipeline(ModulePassManager &MPM) {
  mtpc::ModulePassList &Passes = MPM.*member(mtpc::ModulePasses());
  auto Named = [](StringRef Name) { return [Name](auto &P) { return P->name() == Name; }; };
  auto Inliner = llvm::find_if(Passes, Named(ModuleInlinerWrapperPass::name()));
  auto Cut = std::find_if(std::make_reverse_iterator(Inliner), Passes.rend(),
                          Named(DeadArgumentEliminationPass::name())).base();
  if (Inliner == Passes.end() || Cut == Passes.begin())
    return nullptr; // Cut is one past the pass found
  for (StringRef WholeProgram : {WholeProgramDevirtPass::name(), IPSCCPPass::name(), GlobalSplitPass::name(),
                                 CrossDSOCFIPass::name()})
    if (std::any_of(Cut, Passes.end(), Named(WholeProgram)))
      return nullptr;
  auto Parts = std::make_shared<LtoPipelineRest>();
  mtpc::ModulePassList &Rest = Parts->Rest.*member(mtpc::ModulePasses());
  std::move(Cut, Passes.end(), std::back_inserter(Rest));
  Passes.erase(Cut, Passes.end());
  using LowerTypeTestsModel = mtpc::PassModel<Module, LowerTypeTestsPass, ModuleAnalysisManager>;
  using GuardedModel = mtpc::PassModel<Module, TypeTestLoweringUnlessDone, ModuleAnalysisManager>;
  // Only LowerTypeTestsPass is named so: P is its PassModel.
  for (auto &P : Rest) {
    if (P->name() != LowerTypeTestsPass::name())
      continue;
    const LowerTypeTestsPass &Lowering = static_cast<LowerTypeTestsModel &>(*P).Pass;
    Parts->WholeProgramTail.addPass(LowerTypeTestsPass(Lowering));
    P = std::make_unique<GuardedModel>(TypeTestLoweringUnlessDone(Lowering, Parts->TypeTestsLowered));
  }
  return Parts;
}

// The text mtpc's pass left in the module (its inline asm), by length and
// hash: later passes may append to it, never change it.
struct CommittedText {
  size_t Length;
  uint64_t Hash;
};

// Shared by an automatic mode pass and the passes at the end of the host's
// pipeline: the text mtpc's pass left, if it split the module, and whether
// it left the module whole only because the machine was busy then (the
// code generation may be split, once optimized, if a core is free by then).
struct RunState {
  std::optional<CommittedText> Committed;
  bool CodeGenerationSplitWanted = false;
};

class HostPipeline;

// The mtpc-parallel module pass.
struct ParallelPass : PassInfoMixin<ParallelPass> {
  ParallelPass(std::shared_ptr<HostPipeline> Host, MtpcParallelRequest Request, std::shared_ptr<RunState> State,
               std::shared_ptr<LtoPipelineRest> Lto = nullptr)
      : Host(std::move(Host)), Request(Request), State(std::move(State)), Lto(std::move(Lto)) {}
  std::shared_ptr<HostPipeline> Host;
  MtpcParallelRequest Request;
  std::shared_ptr<RunState> State; // automatic mode at PipelineStart and EarlySimplification
  std::shared_ptr<LtoPipelineRest> Lto; // automatic mode in full LTO: the host's pipeline after this pass
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM);
  static bool isRequired() { return true; }
};

// The mtpc-split module pass, with the pipeline text that asked for it.
struct SplitPass : PassInfoMixin<SplitPass> {
  explicit SplitPass(std::string Text) : Text(std::move(Text)) {}
  std::string Text;
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    return mtpc_rs_run_split(Text.data(), Text.size(), wrap(&M)) ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
  static bool isRequired() { return true; }
};

// Last in the host's pipeline: the module is put back as mtpc's pass left it.
struct RestorePass : PassInfoMixin<RestorePass> {
  explicit RestorePass(std::shared_ptr<RunState> State) : State(std::move(State)) {}
  std::shared_ptr<RunState> State;
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    std::optional<CommittedText> Committed = std::exchange(State->Committed, std::nullopt);
    if (!Committed)
      return PreservedAnalyses::all();
    StringRef Text = StringRef(M.getModuleInlineAsm()).take_front(Committed->Length);
    if (Text.size() != Committed->Length || xxHash64(Text) != Committed->Hash) {
      // Truncating would make a text nobody compiled: stop the compile.
      M.getContext().emitError("mtpc: a pass after mtpc's changed the module's compiled code (its inline asm); "
                               "compile without the mtpc plugin, or report the pass that did");
      return PreservedAnalyses::all();
    }
    mtpc::replaceModuleWithAsm(M, Text);
    return PreservedAnalyses::none();
  }
  static bool isRequired() { return true; }
};

// Where the OptimizerLast callbacks end, in a host's pipeline built for
// what comes after them (HostPipeline::pipelineTail).
struct TailMarker : PassInfoMixin<TailMarker> {
  PreservedAnalyses run(Module &, ModuleAnalysisManager &) { return PreservedAnalyses::all(); }
  static bool isRequired() { return true; }
};

// A callback at an extension point that another mtpc callback parked: puts
// it back.
using Parked = std::function<void()>;

// mtpc on one host PassBuilder.
class HostPipeline : public std::enable_shared_from_this<HostPipeline> {
public:
  explicit HostPipeline(PassBuilder &PB) : PB(PB) {}
  PassBuilder &PB;
  // Positions of mtpc's callbacks in the builder's lists.
  size_t StartIndex = 0, EarlyIndex = 0;

  // The first callback of a build of the full LTO pipeline.
  void onFullLtoEarly() {
    if (!BuildingPartitions)
      placeFullLtoLast();
  }

  // The end of a build of the full LTO pipeline: mtpc's pass takes the rest
  // (see the file's header).
  void onFullLtoLast(ModulePassManager &MPM, OptimizationLevel L) {
    if (BuildingPartitions)
      return;
    if (std::shared_ptr<LtoPipelineRest> Rest = cutLtoPipeline(MPM)) {
      Rest->ForeignLastCallbacks = foreignFullLtoLastCallbacks();
      MtpcParallelRequest Request{1, levelNumber(L), int32_t(Phase::FullLtoPostLink), 0, 0, 0, 1, 0};
      MPM.addPass(ParallelPass(shared_from_this(), Request, nullptr, std::move(Rest)));
    }
  }

  // The host's full LTO pipeline for L, without a summary (as lto<On> in
  // pipeline text), cut (cutLtoPipeline): its whole-program part, and the
  // rest, null at -O0 and -O1 (then the first holds all of it).
  std::pair<ModulePassManager, std::shared_ptr<LtoPipelineRest>> ltoPipeline(OptimizationLevel L) {
    restoreParked();
    BuildingPartitions = true;
    ModulePassManager MPM = PB.buildLTODefaultPipeline(L, /*ExportSummary=*/nullptr);
    BuildingPartitions = false;
    std::shared_ptr<LtoPipelineRest> Rest = cutLtoPipeline(MPM);
    if (Rest)
      Rest->ForeignLastCallbacks = foreignFullLtoLastCallbacks();
    return {std::move(MPM), std::move(Rest)};
  }

  void onPipelineStart(ModulePassManager &MPM, OptimizationLevel L) {
    if (BuildingPartitions)
      return;
    restoreParked();
    StartFired = true;
    callLaterCallbacks(PB.*member(mtpc::PipelineStartCallbacks()), StartIndex, MPM, L, ThinOrFullLTOPhase::None);
    addAutomaticPass(MPM, L, Phase::PerModule);
  }

  // (LTOPhase: what the host's callbacks at this point are told, from LLVM 20.)
  void onEarlySimplification(ModulePassManager &MPM, OptimizationLevel L, ThinOrFullLTOPhase LTOPhase) {
    if (BuildingPartitions)
      return;
    restoreParked();
    if (StartFired)
      return; // a per-module pipeline: mtpc's pass is at PipelineStart
    callLaterCallbacks(PB.*member(mtpc::EarlySimplificationCallbacks()), EarlyIndex, MPM, L, LTOPhase);
    addAutomaticPass(MPM, L, Phase::ThinLtoPostLink);
  }

  // The pipeline a partition that optimizes runs (see the file's header;
  // a partition that only generates code runs codeGenerationPipeline);
  // nullopt if the full LTO pipeline cannot be cut (mtpc's pass then never
  // splits).
  std::optional<ModulePassManager> partitionPipeline(OptimizationLevel L, Phase P, bool Explicit) {
    assert(P != Phase::CodeGenerationOnly && "not the host's pipeline: codeGenerationPipeline");
    if (P == Phase::FullLtoPostLink) {
      std::shared_ptr<LtoPipelineRest> Rest = ltoPipeline(L).second;
      if (!Rest)
        return std::nullopt;
      *Rest->TypeTestsLowered = true; // on the whole module, before the split
      return std::move(Rest->Rest);
    }
    restoreParked();
    BuildingPartitions = true;
    ModulePassManager MPM = Explicit ? defaultPipeline(L, P) : pipelineAfterExtensionPoint(L, P);
    BuildingPartitions = false;
    return MPM;
  }

  // What the host's pipeline for L and P runs after its OptimizerLast
  // callbacks (LLVM 16 to 22: global DCE, constant merging, the call graph
  // profile, relative lookup tables, annotation remarks); nullopt if mtpc
  // cannot find where those callbacks end, or if a pass there is not one
  // mtpc knows how to run ahead of the host (tailPassKind).
  std::optional<PipelineTail> pipelineTail(OptimizationLevel L, Phase P) {
    restoreParked();
    BuildingPartitions = BuildingTail = true;
    ModulePassManager MPM = defaultPipeline(L, P);
    BuildingPartitions = BuildingTail = false;
    mtpc::ModulePassList &Passes = MPM.*member(mtpc::ModulePasses());
    auto Marker = llvm::find_if(Passes, [](auto &Pass) { return Pass->name() == TailMarker::name(); });
    if (Marker == Passes.end())
      return std::nullopt; // nested in another pass manager: not a pipeline mtpc knows
    PipelineTail Tail;
    for (auto It = std::next(Marker); It != Passes.end(); ++It) {
      switch (tailPassKind(**It)) {
      case TailPass::RunsTwiceAlike:
        // After the remarks, it would change what stock reports on.
        if (Tail.AnnotationRemarks)
          return std::nullopt;
        (Tail.AheadOfHost.*member(mtpc::ModulePasses())).push_back(std::move(*It));
        break;
      case TailPass::ReportsOnly:
        Tail.AnnotationRemarks = true;
        break;
      case TailPass::Unknown:
        return std::nullopt;
      }
    }
    return Tail;
  }

  // The end of a build of the host's pipeline (its OptimizerLast callbacks):
  // the code generation of a module mtpc's pass left whole for the load may
  // be split (ParallelPass::run), then the module is put back as this
  // build's mtpc pass left it.
  void onOptimizerLast(ModulePassManager &MPM) {
    if (BuildingTail) {
      MPM.addPass(TailMarker());
      return;
    }
    if (BuildingPartitions)
      return;
    restoreParked();
    StartFired = false;
    if (std::shared_ptr<RunState> State = std::exchange(BuildState, nullptr)) {
      MPM.addPass(ParallelPass(shared_from_this(), codeGenerationRequest(), State));
      MPM.addPass(RestorePass(std::move(State)));
    }
  }

private:
  // The host's default pipeline for L and P.
  ModulePassManager defaultPipeline(OptimizationLevel L, Phase P) {
    if (P == Phase::ThinLtoPostLink)
      return PB.buildThinLTODefaultPipeline(L, /*ImportSummary=*/nullptr);
    if (L == OptimizationLevel::O0)
      return PB.buildO0DefaultPipeline(L) /* not pre-link */;
    return PB.buildPerModuleDefaultPipeline(L);
  }

  // What the default pipeline adds after mtpc's extension point: that
  // point's callbacks are replaced by one that drops what came before.
  ModulePassManager pipelineAfterExtensionPoint(OptimizationLevel L, Phase P) {
    if (P == Phase::PerModule)
      return withPointDroppingEarlierPasses(PB.*member(mtpc::PipelineStartCallbacks()), L, P);
    return withPointDroppingEarlierPasses(PB.*member(mtpc::EarlySimplificationCallbacks()), L, P);
  }

  // The default pipeline for L and P built with Point's callbacks replaced by
  // one that drops what was built before it.
  template <typename ListT> ModulePassManager withPointDroppingEarlierPasses(ListT &Point, OptimizationLevel L, Phase P) {
    ListT Saved = std::move(Point);
    Point.clear();
    Point.push_back([](ModulePassManager &MPM, auto &&...) { MPM = ModulePassManager(); });
    ModulePassManager MPM = defaultPipeline(L, P);
    Point = std::move(Saved);
    return MPM;
  }

private:
  // Calls the callbacks registered after mtpc's (at Own) into MPM, before
  // mtpc's pass, and parks them for the rest of this build.
  template <typename ListT>
  void callLaterCallbacks(ListT &List, size_t Own, ModulePassManager &MPM, OptimizationLevel L,
                          ThinOrFullLTOPhase LTOPhase) {
    for (size_t I = Own + 1; I < List.size(); ++I) {
      mtpc::callEPCallback(List[I], MPM, L, LTOPhase);
      auto Callback = std::exchange(List[I], [](ModulePassManager &, auto &&...) {});
      Waiting.push_back([&List, I, Callback = std::move(Callback)]() mutable { List[I] = std::move(Callback); });
    }
  }

  void restoreParked() {
    for (Parked &PutBack : Waiting)
      PutBack();
    Waiting.clear();
  }

  void addAutomaticPass(ModulePassManager &MPM, OptimizationLevel L, Phase P) {
    BuildState = std::make_shared<RunState>();
    // Automatic mode: the environment decides the rest (CostModel too).
    BuildRequest = MtpcParallelRequest{1, levelNumber(L), int32_t(P), 0, 0, 0, 1, 0};
    MPM.addPass(ParallelPass(shared_from_this(), BuildRequest, BuildState));
    placeRestoreLast();
  }

  // The request of the pass that splits the code generation of the module
  // this build's automatic pass left whole (onOptimizerLast).
  MtpcParallelRequest codeGenerationRequest() const {
    MtpcParallelRequest Request = BuildRequest;
    Request.AfterOptimization = 1;
    return Request;
  }

  // mtpc's OptimizerLast callback, registered now (the host has registered
  // its own callbacks before it builds) and moved to the end if others came
  // after it, so that it runs after every other OptimizerLast callback.
  void placeRestoreLast();
  // The same for mtpc's FullLinkTimeOptimizationLast callback.
  void placeFullLtoLast();
  // FullLinkTimeOptimizationLast callbacks that are not mtpc's.
  size_t foreignFullLtoLastCallbacks();

  // Within one build of the host's pipeline: whether PipelineStart fired
  // (then mtpc's pass is there, not at EarlySimplification), and the state
  // of the pass added, for the pass that restores the module at its end.
  bool StartFired = false;
  std::shared_ptr<RunState> BuildState;
  MtpcParallelRequest BuildRequest{};
  bool BuildingPartitions = false;
  // Building the host's pipeline for its tail (pipelineTail).
  bool BuildingTail = false;
  std::vector<Parked> Waiting;
};

// mtpc's callbacks, as types of their own: a second registration of mtpc on
// the same builder (the plugin named twice) recognizes the first. Those at
// points whose callbacks LLVM 20 gave a ThinOrFullLTOPhase take it or not
// (llvm_compat.h).
struct OwnStartCallback {
  std::shared_ptr<HostPipeline> Host;
  void operator()(ModulePassManager &MPM, OptimizationLevel L) const { Host->onPipelineStart(MPM, L); }
};
struct OwnEarlySimplificationCallback {
  std::shared_ptr<HostPipeline> Host;
  void operator()(ModulePassManager &MPM, OptimizationLevel L, ThinOrFullLTOPhase LTOPhase) const {
    Host->onEarlySimplification(MPM, L, LTOPhase);
  }
  void operator()(ModulePassManager &MPM, OptimizationLevel L) const {
    Host->onEarlySimplification(MPM, L, ThinOrFullLTOPhase::None); // (not told before LLVM 20)
  }
};
struct OwnOptimizerLastCallback {
  std::shared_ptr<HostPipeline> Host;
  void operator()(ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) const { Host->onOptimizerLast(MPM); }
  void operator()(ModulePassManager &MPM, OptimizationLevel) const { Host->onOptimizerLast(MPM); }
};
struct OwnFullLtoEarlyCallback {
  std::shared_ptr<HostPipeline> Host;
  void operator()(ModulePassManager &, OptimizationLevel) const { Host->onFullLtoEarly(); }
};
struct OwnFullLtoLastCallback {
  std::shared_ptr<HostPipeline> Host;
  void operator()(ModulePassManager &MPM, OptimizationLevel L) const { Host->onFullLtoLast(MPM, L); }
};

// Puts Callback (of type CallbackT) at the end of List, where it may be already.
template <typename ListT, typename CallbackT> void placeLast(ListT &List, CallbackT Callback) {
  if (!List.empty() && List.back().template target<CallbackT>())
    return;
  llvm::erase_if(List, [](auto &C) { return C.template target<CallbackT>() != nullptr; });
  List.push_back(std::move(Callback));
}

void HostPipeline::placeRestoreLast() {
  placeLast(PB.*member(mtpc::OptimizerLastCallbacks()), OwnOptimizerLastCallback{shared_from_this()});
}

void HostPipeline::placeFullLtoLast() {
  placeLast(PB.*member(mtpc::FullLtoLastCallbacks()), OwnFullLtoLastCallback{shared_from_this()});
}

size_t HostPipeline::foreignFullLtoLastCallbacks() {
  return llvm::count_if(PB.*member(mtpc::FullLtoLastCallbacks()),
                        [](auto &C) { return C.template target<OwnFullLtoLastCallback>() == nullptr; });
}

} // namespace

namespace mtpc {
// What a run of mtpc-parallel hands to Rust (the mtpc_run_* functions).
struct PassRun {
  std::shared_ptr<HostPipeline> Host;
  Module &M;
  ModuleAnalysisManager &MAM;
  RunState *State; // automatic mode only
  bool Explicit;
  // Full LTO: the pipeline after the whole-program part, and what of it ran
  // on the whole module.
  LtoPipelineRest *Lto = nullptr;
  bool RestRan = false;
  // The host's last passes ran on the module (mtpc_run_host_pipeline_tail),
  // but for annotation remarks, which the partitions then report.
  bool TailRan = false;
  bool TailAnnotationRemarks = false;

  // Full LTO, the module not split: the rest of the pipeline runs on the
  // whole module, once.
  void runLtoRestOnce() {
    if (Lto && !std::exchange(RestRan, true))
      Lto->Rest.run(M, MAM);
  }
};

// What every partition of one module is built with.
struct PartitionEnvironment {
  std::shared_ptr<HostPipeline> Host;
  HostSettings Settings;
  HostAnalyses Analyses;
  std::shared_ptr<RemarkPolicy> Remarks;
  std::shared_ptr<const DebugFiles> Files;
  OptimizationLevel Level;
  Phase P;
  bool Explicit;
  bool DiscardValueNames;
  bool PartsWriteObjects;
  bool UnwindTables;
  // Phase::CodeGenerationOnly: the host's last passes ran on the whole
  // module but for annotation remarks, which each partition runs.
  bool AnnotationRemarks;
};
} // namespace mtpc

Module &mtpc::runModule(void *Run) { return static_cast<mtpc::PassRun *>(Run)->M; }

PreservedAnalyses ParallelPass::run(Module &M, ModuleAnalysisManager &MAM) {
  // The split of the code generation runs only where this build's mtpc pass
  // asked for it (mtpc_run_want_code_generation_split), once.
  if (Request.AfterOptimization &&
      !(State && std::exchange(State->CodeGenerationSplitWanted, false) && !State->Committed))
    return PreservedAnalyses::all();
  std::shared_ptr<LtoPipelineRest> Rest = Lto;
  if (Rest)
    *Rest->TypeTestsLowered = false; // a new run of the host's pipeline
  if (phaseOf(Request.Phase) == Phase::FullLtoPostLink && !Rest) {
    // Explicit mode stands for lto<On>: its whole-program part runs here.
    auto [WholeProgram, Cut] = Host->ltoPipeline(optimizationLevel(Request.Level));
    WholeProgram.run(M, MAM);
    if (!Cut)
      return PreservedAnalyses::none(); // -O0, -O1: that was all of it
    Rest = std::move(Cut);
  }
  mtpc::PassRun Run{Host, M, MAM, State.get(), Request.Automatic == 0, Rest.get()};
  bool Changed = mtpc_rs_run_parallel(&Request, wrap(&M), &Run) || Run.TailRan;
  if (Rest && !Changed) {
    Run.runLtoRestOnce();
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

namespace {

// The analysis of type AnalysisT that the host registered on its function
// analysis manager, copied; none if it registered none.
template <typename AnalysisT> std::optional<AnalysisT> registeredAnalysis(FunctionAnalysisManager &FAM) {
  auto &Passes = FAM.*member(mtpc::FunctionAnalysisPasses());
  auto It = Passes.find(AnalysisT::ID());
  if (It == Passes.end())
    return std::nullopt;
  using ModelT = mtpc::AnalysisPassModel<Function, AnalysisT, FunctionAnalysisManager::Invalidator>;
  return static_cast<ModelT &>(*It->second).Pass;
}

mtpc::HostAnalyses hostAnalyses(Module &M, ModuleAnalysisManager &MAM) {
  mtpc::HostAnalyses A;
  FunctionAnalysisManager &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  A.LibraryInfo = registeredAnalysis<TargetLibraryAnalysis>(FAM);
  A.AliasAnalysis = registeredAnalysis<AAManager>(FAM);
  std::optional<TargetLibraryInfoImpl> Impl;
  if (A.LibraryInfo)
    Impl = (*A.LibraryInfo).*member(mtpc::BaselineLibraryInfo());
  A.LibraryInfoImpl = std::make_shared<const TargetLibraryInfoImpl>(Impl ? *Impl : TargetLibraryInfoImpl(Triple(M.getTargetTriple())));
  return A;
}

} // namespace

extern "C" {

// Registers mtpc-parallel and mtpc-split with the host PassBuilder PB (an
// llvm::PassBuilder*).
void mtpc_host_pipeline_register(void *PBP) {
  PassBuilder &PB = *static_cast<PassBuilder *>(PBP);
  for (auto &C : PB.*member(mtpc::PipelineStartCallbacks()))
    if (C.target<OwnStartCallback>())
      return;
  auto Host = std::make_shared<HostPipeline>(PB);
  PB.registerPipelineStartEPCallback(OwnStartCallback{Host});
  Host->StartIndex = (PB.*member(mtpc::PipelineStartCallbacks())).size() - 1;
  PB.registerPipelineEarlySimplificationEPCallback(OwnEarlySimplificationCallback{Host});
  Host->EarlyIndex = (PB.*member(mtpc::EarlySimplificationCallbacks())).size() - 1;
  PB.registerFullLinkTimeOptimizationEarlyEPCallback(OwnFullLtoEarlyCallback{Host});
  PB.registerFullLinkTimeOptimizationLastEPCallback(OwnFullLtoLastCallback{Host});
  PB.registerPipelineParsingCallback(
      [Host](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        MtpcParallelRequest Request{};
        if (mtpc_rs_parse_parallel(Name.data(), Name.size(), &Request) != 1)
          return false;
        MPM.addPass(ParallelPass(Host, Request, nullptr));
        return true;
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (mtpc_rs_parse_split(Name.data(), Name.size()) != 1)
          return false;
        MPM.addPass(SplitPass(Name.str()));
        return true;
      });
}

// The host's code-generation and pipeline settings (free with
// mtpc_host_settings_free); null if the host has no target machine.
void *mtpc_run_host_settings(void *RunP) {
  return mtpc::HostSettings::capture(static_cast<mtpc::PassRun *>(RunP)->Host->PB).release();
}

// The module's identifier in the host (clang: the main file's name).
const char *mtpc_run_module_identifier(void *RunP, size_t *Len) {
  const std::string &Id = static_cast<mtpc::PassRun *>(RunP)->M.getModuleIdentifier();
  *Len = Id.size();
  return Id.data();
}

// What the partitions of this run's module are built with (free with
// mtpc_environment_free): Settings copied, the host's analyses copied, the
// remarks the host's context wants (worded for an object if HostWritesObject,
// else for assembly), and the module's source files (from
// mtpc_debug_files_collect). With PartsWriteObjects, each partition's code
// generator writes an object, with its debug sections whole whatever the
// host's compression (the host compresses what it writes), instead of
// assembly text. With UnwindTables (the module's functions need them,
// mtpc_module_needs_unwind_tables), every partition's code generator puts
// its call frame information in .eh_frame (see mtpc_kit_codegen).
void *mtpc_run_environment(void *RunP, void *Settings, void *Files, int Level, int P, bool HostWritesObject,
                           bool PartsWriteObjects, bool UnwindTables) {
  auto *Run = static_cast<mtpc::PassRun *>(RunP);
  return new mtpc::PartitionEnvironment{Run->Host,
                                        *static_cast<mtpc::HostSettings *>(Settings),
                                        hostAnalyses(Run->M, Run->MAM),
                                        std::make_shared<mtpc::RemarkPolicy>(Run->M.getContext(), HostWritesObject),
                                        *static_cast<std::shared_ptr<const mtpc::DebugFiles> *>(Files),
                                        optimizationLevel(Level),
                                        phaseOf(P),
                                        Run->Explicit,
                                        Run->M.getContext().shouldDiscardValueNames(),
                                        PartsWriteObjects,
                                        UnwindTables,
                                        Run->TailAnnotationRemarks};
}

void mtpc_environment_free(void *Env) { delete static_cast<mtpc::PartitionEnvironment *>(Env); }

// Builds the kit one partition is compiled with (optimize and compile with
// mtpc_kit_optimize and mtpc_kit_codegen, or free it with mtpc_kit_free);
// null if no target machine or pipeline can be made. Only on the thread running mtpc's pass.
void *mtpc_environment_build_kit(void *EnvP) {
  auto *Env = static_cast<mtpc::PartitionEnvironment *>(EnvP);
  auto Kit = std::make_unique<mtpc::PartitionKit>();
  Kit->TM = Env->Settings.createTargetMachine(Env->PartsWriteObjects ? mtpc::ObjectFormat::ForTranscript
                                                                     : mtpc::ObjectFormat::AsHost);
  if (!Kit->TM)
    return nullptr;
  Kit->WritesObject = Env->PartsWriteObjects;
  Kit->UnwindTables = Env->UnwindTables;
  Kit->OptNone.registerCallbacks(Kit->PIC);
  Kit->TimeProfiling.registerCallbacks(Kit->PIC);
  // The partition's own instrumentation and target machine, and copies of
  // the host's library info and alias analysis, registered first so that
  // the host's builder registers everything else around them.
  PassInstrumentationCallbacks *PIC = &Kit->PIC;
  Kit->MAM.registerPass([&] { return PassInstrumentationAnalysis(PIC); });
  Kit->CGAM.registerPass([&] { return PassInstrumentationAnalysis(PIC); });
  Kit->FAM.registerPass([&] { return PassInstrumentationAnalysis(PIC); });
  Kit->LAM.registerPass([&] { return PassInstrumentationAnalysis(PIC); });
  Kit->FAM.registerPass([&] { return Kit->TM->getTargetIRAnalysis(); });
  if (Env->Analyses.LibraryInfo)
    Kit->FAM.registerPass([&] { return *Env->Analyses.LibraryInfo; });
  if (Env->Analyses.AliasAnalysis)
    Kit->FAM.registerPass([&] { return *Env->Analyses.AliasAnalysis; });
  PassBuilder &PB = Env->Host->PB;
  PB.registerModuleAnalyses(Kit->MAM);
  PB.registerCGSCCAnalyses(Kit->CGAM);
  PB.registerFunctionAnalyses(Kit->FAM);
  PB.registerLoopAnalyses(Kit->LAM);
  PB.crossRegisterProxies(Kit->LAM, Kit->FAM, Kit->CGAM, Kit->MAM);
  std::optional<ModulePassManager> MPM = Env->P == Phase::CodeGenerationOnly
                                             ? codeGenerationPipeline(Env->AnnotationRemarks)
                                             : Env->Host->partitionPipeline(Env->Level, Env->P, Env->Explicit);
  if (!MPM)
    return nullptr;
  Kit->MPM = std::move(*MPM);
  Kit->LibraryInfo = Env->Analyses.LibraryInfoImpl;
  Kit->Remarks = Env->Remarks;
  Kit->Files = Env->Files;
  Kit->DiscardValueNames = Env->DiscardValueNames;
  return Kit.release();
}

// Optimizes the run's module whole, in place, with the host's default
// pipeline for Level and Phase (all of it: what an explicit mtpc-parallel
// stands for when it does not split the module; in full LTO, the rest after
// the whole-program part, which has run).
void mtpc_run_optimize_whole(void *RunP, int Level, int P) {
  auto *Run = static_cast<mtpc::PassRun *>(RunP);
  if (Run->Lto) {
    Run->runLtoRestOnce();
    return;
  }
  std::optional<ModulePassManager> MPM = Run->Host->partitionPipeline(optimizationLevel(Level), phaseOf(P),
                                                                     /*Explicit=*/true);
  if (MPM)
    MPM->run(Run->M, Run->MAM);
}

// Full LTO: the FullLinkTimeOptimizationLast callbacks of other plugins
// (their passes run after the cut); 0 in other phases.
size_t mtpc_run_foreign_full_lto_last_callbacks(void *RunP) {
  auto *Run = static_cast<mtpc::PassRun *>(RunP);
  return Run->Lto ? Run->Lto->ForeignLastCallbacks : 0;
}

// Full LTO: runs the type-test lowering of the rest of the pipeline on the
// whole module (see the file's header), once; nothing in other phases.
void mtpc_run_lower_type_tests_whole(void *RunP) {
  auto *Run = static_cast<mtpc::PassRun *>(RunP);
  if (Run->Lto && !*Run->Lto->TypeTestsLowered) {
    Run->Lto->WholeProgramTail.run(Run->M, Run->MAM);
    *Run->Lto->TypeTestsLowered = true;
  }
}

// Runs on the run's module what the host's pipeline for Level and P runs
// after its OptimizerLast callbacks, the last of which is mtpc's pass that
// splits the code generation (see the file's header); false if mtpc cannot
// find those passes or one of them could change the module when the host
// runs it again (the module is then untouched).
bool mtpc_run_host_pipeline_tail(void *RunP, int Level, int P) {
  auto *Run = static_cast<mtpc::PassRun *>(RunP);
  std::optional<PipelineTail> Tail = Run->Host->pipelineTail(optimizationLevel(Level), phaseOf(P));
  if (!Tail)
    return false;
  Tail->AheadOfHost.run(Run->M, Run->MAM);
  Run->TailRan = true;
  Run->TailAnnotationRemarks = Tail->AnnotationRemarks;
  return true;
}

// Asks the pass at the end of this build of the host's pipeline to consider
// splitting the code generation of the module, which this run leaves whole;
// false where there is no such pass (explicit mode, full LTO).
bool mtpc_run_want_code_generation_split(void *RunP) {
  auto *Run = static_cast<mtpc::PassRun *>(RunP);
  if (!Run->State)
    return false;
  Run->State->CodeGenerationSplitWanted = true;
  return true;
}

// Records that the module's inline asm is the text mtpc's pass left, so that
// the end of the host's pipeline can put the module back as it is now
// (automatic mode).
void mtpc_run_commit(void *RunP) {
  auto *Run = static_cast<mtpc::PassRun *>(RunP);
  if (Run->State) {
    StringRef Text = Run->M.getModuleInlineAsm();
    Run->State->Committed = CommittedText{Text.size(), xxHash64(Text)};
  }
}

} // extern "C"
