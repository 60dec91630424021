// The product's five serving lessons, measured on the default model, each side by side
// in one run with a fixed seed, with ratios against stated targets (never a test):
//   1. prefix caching on a shared system prompt: hit rate, mean TTFT on vs off;
//   2. chunked prefill: p99 ITL of steady decodes while long prompts arrive;
//   3. batching: total tok/s rises with max_num_seqs, per-request tok/s does not;
//   4. speculative decoding: n-gram drafts raise one request's decode tok/s when the
//      output repeats its prompt, and lower total throughput once many requests share
//      the step (the crossing load is printed); a draft model with --draft-model DIR;
//   5. prefill/decode disaggregation: a prefill and a decode instance (half the threads
//      each) against one colocated instance with chunked prefill on all of them, long
//      prompts arriving while others decode: p99 ITL, TTFT with the transfer, total
//      tok/s. Ratios only, no target: neither design is declared the winner.
// Usage: bench_serving [--quick] [--model DIR] [--backend auto|cpu|cuda] [--threads N]
//        [--draft-model DIR] [--only 1|2|3|4|5]
// Each configuration is also reproducible with `llm-workbench bench` (printed below each
// table; see bench/README.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "engine/bench/bench_runner.h"
#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/engine.h"
#include "engine/metrics/stats.h"
#include "engine/model/model.h"
#include "engine/model/tokenizer.h"
#include "engine/pd_engine.h"

using namespace lwb;

namespace {

struct Args {
  bool quick = false;
  std::string modelDir, backend = "auto";
  int threads = 0;
  std::string draftModelDir;
  int only = 0;  // 0 = every lesson
};

struct Case {
  std::string label;
  WorkloadOptions workload;
  EngineConfig engine;
};

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    const bool hasValue = i + 1 < argc;
    if (f == "--quick") a.quick = true;
    else if (f == "--model" && hasValue) a.modelDir = argv[++i];
    else if (f == "--backend" && hasValue) a.backend = argv[++i];
    else if (f == "--threads" && hasValue) a.threads = std::atoi(argv[++i]);
    else if (f == "--draft-model" && hasValue) a.draftModelDir = argv[++i];
    else if (f == "--only" && hasValue) a.only = std::atoi(argv[++i]);
    else throw lwb::Error("bench_serving: unknown or incomplete option '" + f +
                     "' (expected --quick, --model DIR, --backend auto|cpu|cuda, --threads N, --draft-model DIR, "
                     "--only 1..5)");
  }
  return a;
}

// The `llm-workbench bench` command line that reproduces one case.
std::string command(const Case& c) {
  const WorkloadOptions& w = c.workload;
  const EngineConfig& e = c.engine;
  auto num = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  std::string s = "llm-workbench bench --num-prompts " + std::to_string(w.numPrompts) + " --request-rate " +
                  (std::isinf(w.requestRate) ? "inf" : num(w.requestRate)) + " --input-len " +
                  std::to_string(w.inputLen) + " --output-len " + std::to_string(w.outputLen);
  if (w.sharedPrefixLen > 0)
    s += " --shared-prefix-len " + std::to_string(w.sharedPrefixLen) + " --num-prefix-groups " +
         std::to_string(w.numPrefixGroups);
  if (w.numBackgroundRequests > 0)
    s += " --num-background-requests " + std::to_string(w.numBackgroundRequests) + " --background-input-len " +
         std::to_string(w.backgroundInputLen) + " --background-output-len " + std::to_string(w.backgroundOutputLen);
  if (w.ignoreEos) s += " --ignore-eos";
  s += " --seed " + std::to_string(w.seed);
  // The knobs that differ from the defaults, spelled as the knob table's flags.
  const EngineConfig defaults;
  for (const Knob& k : knobTable()) {
    const KnobValue v = k.get(e);
    if (v == k.get(defaults)) continue;
    if (k.kind == KnobKind::Bool) s += std::get<bool>(v) ? " --" + k.flag : " --no-" + k.flag;
    else if (k.kind == KnobKind::Json) s += " --" + k.flag + " '" + k.format(v) + "'";  // quoted for the shell
    else s += " --" + k.flag + " " + (k.kind == KnobKind::Int ? std::to_string(std::get<int64_t>(v)) : k.format(v));
  }
  return s;
}

BenchReport run(const std::shared_ptr<const Model>& model, const Case& c) {
  Engine engine(model, c.engine);
  auto workload = makeWorkload(c.workload, model->tokenizer->ordinaryIds(), model->tokenizer->bosId());
  for (SyntheticRequest& r : workload)  // each prompt leaves room for its own output
    clampPromptLengths(r, std::max(1, engine.maxModelLen() - r.sampling.maxTokens));
  std::fprintf(stderr, "  running: %s ...\n", c.label.c_str());
  return runServingBenchmark(engine, workload).report;
}

void verdict(const char* what, double value, const char* op, double target) {
  const bool pass = std::strcmp(op, "<=") == 0 ? value <= target : value >= target;
  std::printf("  %-52s %7.3f  (target %s %.2f)  %s\n", what, value, op, target, pass ? "PASS" : "MISS");
}

EngineConfig baseConfig(const Args& a) {
  EngineConfig e;
  e.executor.backend = a.backend;
  e.executor.numThreads = a.threads;
  return e;
}

void prefixCaching(const std::shared_ptr<const Model>& model, const Args& a) {
  Case c{"", {}, baseConfig(a)};
  c.workload.numPrompts = a.quick ? 32 : 64;
  c.workload.requestRate = std::numeric_limits<double>::infinity();
  // A modest step budget, so that the first step admits only the first prompt or two:
  // every later admission can then find its group's prefix already computed.
  c.engine.maxNumBatchedTokens = 512;
  c.engine.maxNumSeqs = 64;  // all prompts fit; explicit, as vLLM wants budget >= max_num_seqs on any device
  c.workload.sharedPrefixLen = 256;
  c.workload.numPrefixGroups = a.quick ? 2 : 4;
  c.workload.inputLen = 32;
  c.workload.outputLen = 16;
  c.workload.ignoreEos = true;
  c.workload.seed = 1;
  std::printf("\n== Lesson 1: prefix caching on a shared system prompt ==\n"
              "   %d prompts, %d groups x %d-token prefix + %d own tokens, output %d, all at t=0,\n"
              "   %s %d\n",
              c.workload.numPrompts, c.workload.numPrefixGroups, c.workload.sharedPrefixLen, c.workload.inputLen,
              c.workload.outputLen, std::string(knob::kMaxNumBatchedTokens).c_str(), c.engine.maxNumBatchedTokens);
  std::printf("  %-15s %9s %15s %14s %13s %12s\n", "prefix caching", "hit rate", "mean TTFT (ms)", "p99 TTFT (ms)",
              "duration (s)", "total tok/s");
  BenchReport r[2];
  for (int on = 0; on < 2; ++on) {
    c.engine.enablePrefixCaching = on == 1;
    c.label = on ? "prefix caching on" : "prefix caching off";
    r[on] = run(model, c);
    std::printf("  %-15s %9.3f %15.1f %14.1f %13.2f %12.0f\n", on ? "on" : "off", r[on].prefixCacheHitRate,
                r[on].ttftMs.mean, r[on].ttftMs.p99, r[on].duration, r[on].totalTokenThroughput);
  }
  verdict("hit rate with caching", r[1].prefixCacheHitRate, ">=", 0.7);
  verdict("mean TTFT with caching / without", r[1].ttftMs.mean / r[0].ttftMs.mean, "<=", 0.6);
  std::printf("  reproduce: %s\n", command(c).c_str());
}

void chunkedPrefill(const std::shared_ptr<const Model>& model, const Args& a) {
  Case c{"", {}, baseConfig(a)};
  c.workload.numBackgroundRequests = a.quick ? 4 : 8;
  c.workload.backgroundInputLen = 32;
  c.workload.backgroundOutputLen = a.quick ? 100 : 200;
  c.workload.numPrompts = a.quick ? 3 : 6;
  c.workload.inputLen = 900;
  c.workload.outputLen = 16;
  c.workload.ignoreEos = true;
  c.workload.seed = 2;
  c.engine.enablePrefixCaching = false;
  // The long prompts must arrive while the decodes run, however fast this machine decodes:
  // a short run of the decodes alone measures their inter-token latency, and the arrivals
  // are spread (Poisson) over the first three quarters of the decodes' expected lifetime.
  // Each arrival stalls one ITL of every decode, so stalls are numPrompts / output_len
  // (3 %) of the ITL samples: enough for p99 to see them.
  Case calibration{"calibration: the steady decodes alone", {}, c.engine};
  calibration.workload.numPrompts = c.workload.numBackgroundRequests;
  calibration.workload.inputLen = c.workload.backgroundInputLen;
  calibration.workload.outputLen = 32;
  calibration.workload.requestRate = std::numeric_limits<double>::infinity();
  calibration.workload.ignoreEos = true;
  calibration.engine.enableChunkedPrefill = true;
  const double itlSeconds = std::max(1e-4, run(model, calibration).itlMs.mean / 1000);
  const double decodeSeconds = c.workload.backgroundOutputLen * itlSeconds;
  c.workload.requestRate = c.workload.numPrompts / (0.75 * decodeSeconds);
  std::printf("\n== Lesson 2: chunked prefill keeps decodes flowing ==\n"
              "   %d steady decodes of %d tokens (~%.2f s alone); %d prompts of %d tokens arriving ~every %.0f ms (Poisson)\n",
              c.workload.numBackgroundRequests, c.workload.backgroundOutputLen, decodeSeconds, c.workload.numPrompts,
              c.workload.inputLen, 1000 / c.workload.requestRate);
  std::printf("  %-28s %13s %13s %14s %15s\n", "config", "p99 ITL (ms)", "mean ITL (ms)", "max ITL (ms)",
              "mean TTFT (ms)");
  BenchReport r[2];
  const int budgets[2] = {2048, 128};
  for (int chunked = 0; chunked < 2; ++chunked) {
    c.engine.enableChunkedPrefill = chunked == 1;
    c.engine.maxNumBatchedTokens = budgets[chunked];
    c.engine.maxNumSeqs = 64;  // every request fits; budget >= max_num_seqs on any device
    c.label = std::string(chunked ? "chunked" : "unchunked") + ", " + std::string(knob::kMaxNumBatchedTokens) + " " +
              std::to_string(budgets[chunked]);
    r[chunked] = run(model, c);
    std::printf("  %-28s %13.1f %13.1f %14.1f %15.1f\n", c.label.c_str(), r[chunked].itlMs.p99, r[chunked].itlMs.mean,
                r[chunked].itlMs.max, r[chunked].ttftMs.mean);
    std::printf("  reproduce: %s\n", command(c).c_str());
  }
  verdict("p99 ITL chunked(128) / unchunked", r[1].itlMs.p99 / r[0].itlMs.p99, "<=", 0.7);
}

void batching(const std::shared_ptr<const Model>& model, const Args& a) {
  Case c{"", {}, baseConfig(a)};
  c.workload.numPrompts = a.quick ? 8 : 64;
  c.workload.requestRate = std::numeric_limits<double>::infinity();
  c.workload.inputLen = a.quick ? 32 : 64;
  c.workload.outputLen = a.quick ? 24 : 64;
  c.workload.ignoreEos = true;
  c.workload.seed = 3;
  c.engine.enablePrefixCaching = false;
  std::printf("\n== Lesson 3: batching raises total throughput, not per-request speed ==\n"
              "   %d prompts of %d tokens, output %d, all at t=0\n",
              c.workload.numPrompts, c.workload.inputLen, c.workload.outputLen);
  const std::string seqsName(knob::kMaxNumSeqs);
  std::printf("  %-12s %12s %12s %13s %15s %18s\n", seqsName.c_str(), "duration (s)", "total tok/s", "output tok/s",
              "mean TPOT (ms)", "per-request tok/s");
  std::vector<int> seqs = {1, 2, 4, 8, 16, 32, 64};
  if (a.quick) seqs = {1, 2, 8};
  double totalFirst = 0, totalLast = 0, perFirst = 0, perLast = 0;
  for (int n : seqs) {
    c.engine.maxNumSeqs = n;
    c.label = seqsName + " " + std::to_string(n);
    const BenchReport r = run(model, c);
    const double perRequest = r.tpotMs.mean > 0 ? 1000.0 / r.tpotMs.mean : 0.0;
    std::printf("  %-12d %12.2f %12.0f %13.0f %15.2f %18.1f\n", n, r.duration, r.totalTokenThroughput,
                r.outputThroughput, r.tpotMs.mean, perRequest);
    if (n == seqs.front()) totalFirst = r.totalTokenThroughput, perFirst = perRequest;
    totalLast = r.totalTokenThroughput, perLast = perRequest;
  }
  const std::string hi = std::to_string(seqs.back());
  verdict(("total tok/s at " + seqsName + " " + hi + " / at 1").c_str(), totalLast / totalFirst, ">=", 2.0);
  verdict(("per-request tok/s at " + seqsName + " " + hi + " / at 1").c_str(), perLast / perFirst, "<=", 1.1);
  std::printf("  reproduce: %s  (vary --max-num-seqs)\n", command(c).c_str());
}

// Prompts whose continuation repeats them ("continue this passage"): the passage twice,
// then its first half again. Public-domain text (Pride and Prejudice, chapter 1).
std::vector<SyntheticRequest> repeatPrompts(const Model& model, int numRequests, int outputLen) {
  static const char* const kPassages[] = {
      "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want "
      "of a wife. However little known the feelings or views of such a man may be on his first entering a "
      "neighbourhood, this truth is so well fixed in the minds of the surrounding families, that he is considered "
      "the rightful property of some one or other of their daughters.",
      "My dear Mr. Bennet, said his lady to him one day, have you heard that Netherfield Park is let at last? Mr. "
      "Bennet replied that he had not. But it is, returned she; for Mrs. Long has just been here, and she told me "
      "all about it. Mr. Bennet made no answer. Do you not want to know who has taken it? cried his wife "
      "impatiently. You want to tell me, and I have no objection to hearing it."};
  std::vector<SyntheticRequest> out;
  for (int i = 0; i < numRequests; ++i) {
    const std::string passage = kPassages[i % 2];
    const std::string text = passage + "\n\n" + passage + "\n\n" + passage.substr(0, passage.size() / 2);
    SyntheticRequest r;
    r.promptTokenIds = model.tokenizer->encode(text);
    if (model.tokenizer->bosId() >= 0) r.promptTokenIds.insert(r.promptTokenIds.begin(), model.tokenizer->bosId());
    r.sampling.temperature = 0;
    r.sampling.maxTokens = outputLen;
    r.sampling.ignoreEos = true;
    out.push_back(std::move(r));
  }
  return out;
}

BenchReport runRequests(const std::shared_ptr<const Model>& model, EngineConfig config,
                        const std::vector<SyntheticRequest>& requests, int concurrency) {
  config.maxNumSeqs = concurrency;
  config.maxNumBatchedTokens = std::max(2048, concurrency);
  Engine engine(model, config);
  return runServingBenchmark(engine, requests).report;
}

double decodeTokPerS(const BenchReport& r) { return r.tpotMs.mean > 0 ? 1000.0 / r.tpotMs.mean : 0.0; }

// The draft model on ordinary chat prompts (not the repeating passages n-gram lookup
// feeds on): one request at a time, greedy, decode tok/s with and without the draft.
void draftModelRow(const std::shared_ptr<const Model>& model, const EngineConfig& off, const std::string& dir,
                   int outputLen) {
  static const char* kQuestions[] = {"Who is Mr. Darcy?", "What does Elizabeth think of Mr. Collins?",
                                     "Tell me about the ball at Netherfield.", "Why does Jane go to London?"};
  EngineConfig draft = off;
  draft.speculative =
      parseSpeculativeConfig(R"({"num_speculative_tokens": 4, "model": )" + nlohmann::json(dir).dump() + "}");
  double sumBase = 0, sumSpec = 0;
  SpecDecodeCounts counts;
  for (const char* q : kQuestions) {
    SyntheticRequest r;
    r.promptTokenIds = model->encodeChat({{"user", q}}, true);
    r.sampling.temperature = 0;
    r.sampling.maxTokens = outputLen;
    r.sampling.ignoreEos = true;
    sumBase += decodeTokPerS(runRequests(model, off, {r}, 1));
    const BenchReport d = runRequests(model, draft, {r}, 1);
    sumSpec += decodeTokPerS(d);
    counts.add(d.specDecode);
  }
  std::printf("  draft model %s (k 4) on %zu chat questions, one at a time: decode tok/s %.1f without, %.1f with "
              "(%.2fx); acceptance rate %.2f, mean acceptance length %.2f\n",
              dir.c_str(), std::size(kQuestions), sumBase / std::size(kQuestions), sumSpec / std::size(kQuestions),
              sumSpec / sumBase, counts.acceptanceRate(), counts.meanAcceptanceLength());
}

void speculative(const std::shared_ptr<const Model>& model, const Args& a) {
  const int outputLen = a.quick ? 48 : 96;
  const std::string ngram = R"({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_min": 2, "prompt_lookup_max": 4})";
  EngineConfig off = baseConfig(a), on = off;
  on.speculative = parseSpeculativeConfig(ngram);
  std::printf("\n== Lesson 4: speculative decoding helps one request, costs a full batch ==\n"
              "   prompts: a passage twice, then its first half (the output repeats it); greedy, output %d\n"
              "   speculative_config %s\n", outputLen, ngram.c_str());
  // (a) one request at a time: decode tok/s of a single stream. A 96-token request is over
  // so quickly that a shared host's load moves one run noticeably: each prompt runs in
  // alternating pairs (without, with), and the verdict takes the median of the pairs' ratios.
  const auto one = repeatPrompts(*model, a.quick ? 2 : 4, outputLen);
  const int pairs = a.quick ? 1 : 3;
  std::vector<double> ratios;
  for (const SyntheticRequest& r : one) {  // one at a time, max_num_seqs 1
    std::vector<double> base, spec;
    SpecDecodeCounts counts;  // greedy: the same drafts and verdicts in every pair
    for (int p = 0; p < pairs; ++p) {
      base.push_back(decodeTokPerS(runRequests(model, off, {r}, 1)));
      const BenchReport s = runRequests(model, on, {r}, 1);
      spec.push_back(decodeTokPerS(s));
      counts = s.specDecode;
      ratios.push_back(base.back() > 0 ? spec.back() / base.back() : 0.0);
    }
    std::printf("  one request: decode tok/s %.1f without, %.1f with ngram (%s); acceptance rate %.2f, "
                "mean acceptance length %.2f\n", percentile(base, 50), percentile(spec, 50), pairs > 1 ? "medians of the runs" : "1 run",
                counts.acceptanceRate(), counts.meanAcceptanceLength());
  }
  char what[96];
  std::snprintf(what, sizeof what, "one request, tok/s ngram / without (median, %zu pairs)", ratios.size());
  verdict(what, percentile(ratios, 50), ">=", 1.5);
  if (!a.draftModelDir.empty()) draftModelRow(model, off, a.draftModelDir, outputLen);
  // (b) many requests at once: total output tok/s with and without.
  std::printf("  %-12s %16s %16s %8s\n", "concurrency", "tok/s without", "tok/s with", "ratio");
  int crossing = 0;
  for (int c : a.quick ? std::vector<int>{1, 8, 32} : std::vector<int>{1, 2, 4, 8, 16, 32, 64}) {
    const auto many = repeatPrompts(*model, c, outputLen);
    const double without = runRequests(model, off, many, c).outputThroughput;
    const double with = runRequests(model, on, many, c).outputThroughput;
    std::printf("  %-12d %16.0f %16.0f %8.2f\n", c, without, with, with / without);
    if (crossing == 0 && with < without) crossing = c;
  }
  if (crossing > 0) std::printf("  speculation costs throughput from %d concurrent requests on\n", crossing);
  else std::printf("  speculation never cost throughput up to the largest load tried\n");
  std::printf("  with bench: llm-workbench bench --max-num-seqs N ... --speculative-config '%s'\n"
              "  (bench prompts are random tokens: outputs repeat them less than these passages)\n", ngram.c_str());
}

double medianTransferMs(const BenchReport& r) {
  std::vector<double> ms;
  for (const auto& q : r.requests)
    if (q.timeline.kvTransferTime) ms.push_back(*q.timeline.kvTransferTime * 1000);
  if (ms.empty()) return 0;
  std::nth_element(ms.begin(), ms.begin() + long(ms.size() / 2), ms.end());
  return ms[ms.size() / 2];
}

void disaggregation(const std::shared_ptr<const Model>& model, const Args& a) {
  Case c{"colocated, chunked prefill, budget 256", {}, baseConfig(a)};
  if (c.engine.executor.backend == "auto") c.engine.executor.backend = "cpu";  // P/D copies blocks on the CPU
  const int threads = a.threads > 1 ? a.threads : 2;
  c.engine.executor.numThreads = threads;
  c.engine.maxNumBatchedTokens = 256;
  c.workload.numPrompts = a.quick ? 16 : 40;
  c.workload.requestRate = 1.5;
  c.workload.inputLen = 512;
  c.workload.outputLen = 96;
  c.workload.ignoreEos = true;
  c.workload.seed = 1;
  std::printf("\n== Lesson 5: prefill/decode disaggregation against chunked prefill ==\n"
              "   %d prompts of %d tokens at %.1f req/s, output %d; colocated on %d threads, P/D on %d + %d\n",
              c.workload.numPrompts, c.workload.inputLen, c.workload.requestRate, c.workload.outputLen, threads,
              threads / 2, threads - threads / 2);
  std::printf("  %-40s %12s %12s %16s %10s %13s\n", "config", "p99 ITL (ms)", "p99 TTFT", "median TTFT (ms)",
              "tok/s", "transfer (ms)");
  const BenchReport colocated = run(model, c);
  auto row = [](const std::string& label, const BenchReport& r) {
    std::printf("  %-40s %12.1f %12.1f %16.1f %10.0f %13.2f\n", label.c_str(), r.itlMs.p99, r.ttftMs.p99,
                r.ttftMs.median, r.totalTokenThroughput, medianTransferMs(r));
  };
  row(c.label, colocated);
  std::printf("  reproduce: %s\n", command(c).c_str());
  PdConfig pd;
  pd.prefill = pd.decode = c.engine;
  pd.prefill.maxNumBatchedTokens = pd.decode.maxNumBatchedTokens = 0;  // vLLM's default on each instance
  pd.prefill.executor.numThreads = threads / 2;
  pd.decode.executor.numThreads = threads - threads / 2;
  pd.transfer = parseKvTransferConfig(R"({"kv_connector": "PdInProcessConnector"})");
  PdEngine engine(model, pd);
  auto workload = makeWorkload(c.workload, model->tokenizer->ordinaryIds(), model->tokenizer->bosId());
  for (SyntheticRequest& r : workload)
    clampPromptLengths(r, std::max(1, engine.decodeEngine().maxModelLen() - r.sampling.maxTokens));
  std::fprintf(stderr, "  running: P/D ...\n");
  const BenchReport split = runServingBenchmark(engine, workload).report;
  row("P/D " + std::to_string(threads / 2) + ":" + std::to_string(threads - threads / 2), split);
  std::printf("  reproduce: llm-workbench bench --num-prompts %d --request-rate 1.5 --input-len 512 --output-len 96 "
              "--ignore-eos --seed 1 --pd %d:%d\n",
              c.workload.numPrompts, threads / 2, threads - threads / 2);
  std::printf("  P/D / colocated: p99 ITL %.3fx, median TTFT %.3fx, total tok/s %.3fx\n",
              split.itlMs.p99 / colocated.itlMs.p99, split.ttftMs.median / colocated.ttftMs.median,
              split.totalTokenThroughput / colocated.totalTokenThroughput);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args a = parseArgs(argc, argv);
    const std::string dir = a.modelDir.empty() ? defaultModelDir() : a.modelDir;
    const auto model = loadModel(dir);
    {
      Engine probe(model, baseConfig(a));
      const DeviceInfo d = probe.deviceInfo();
      std::printf("bench_serving%s: model %s, backend %s (%s)\n", a.quick ? " --quick" : "", dir.c_str(),
                  d.backend.c_str(), d.name.c_str());
    }
    if (a.only == 0 || a.only == 1) prefixCaching(model, a);
    if (a.only == 0 || a.only == 2) chunkedPrefill(model, a);
    if (a.only == 0 || a.only == 3) batching(model, a);
    if (a.only == 0 || a.only == 4) speculative(model, a);
    if (a.only == 0 || a.only == 5) disaggregation(model, a);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_serving: %s\n", e.what());
    return 1;
  }
}
