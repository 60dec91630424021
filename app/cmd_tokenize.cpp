// `llm-workbench tokenize`: text, a file or a chat through a model folder's tokenizer,
// without loading weights (a folder holding only tokenizer files is enough).
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/args.h"
#include "app/commands.h"
#include "engine/common/json.h"
#include "engine/model/model.h"
#include "engine/model/tokenizer_files.h"

namespace lwb::app {

namespace {

using json = nlohmann::json;

ArgParser makeParser() {
  ArgParser p("tokenize",
              "llm-workbench tokenize [--model DIR] (--text TEXT | --file F | --chat MESSAGES.json) [OPTIONS]",
              "Tokenizes with a model folder's tokenizer (tokenizer.json, else tokenizer.model) and\n"
              "tokenizer_config.json; weights are not read. Plain text gets the special tokens the\n"
              "tokenizer adds by default (as Hugging Face's AutoTokenizer.encode and vLLM's /tokenize);\n"
              "--chat renders an OpenAI-style messages array through the model's chat template and\n"
              "adds nothing more (as apply_chat_template). Prints one token per line (id, piece),\n"
              "or with --json {\"text\": ..., \"ids\": [...], \"tokens\": [...]}.");
  p.option("model", "DIR", "model folder or .gguf file (default: the bundled model)");
  p.option("text", "TEXT", "the text to tokenize");
  p.option("file", "F", "tokenize this file's contents (bytes as they are)");
  p.option("chat", "MESSAGES.json", "a JSON array of {\"role\", \"content\"} messages");
  p.flag("add-generation-prompt", "with --chat: end with the assistant turn's opening");
  p.option("chat-template-kwargs", "JSON", "with --chat: extra template variables (an object)");
  p.flag("json", "print one JSON object");
  return p;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// OpenAI-style messages: an array, or {"messages": [...]}; each an object with a role.
nlohmann::ordered_json readMessages(const std::string& path) {
  nlohmann::ordered_json j;
  try {
    j = parseOrderedJson(readFile(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": not valid JSON: " + e.what());
  }
  if (j.is_object() && j.contains("messages")) j = j["messages"];
  if (!j.is_array()) throw Error(path + ": expected a JSON array of messages (or {\"messages\": [...]})");
  for (size_t i = 0; i < j.size(); ++i)
    if (!j[i].is_object() || !j[i].contains("role") || !j[i]["role"].is_string())
      throw Error(path + ": message " + std::to_string(i) + ": expected an object with a string 'role'");
  return j;
}

// The messages as plain {role, content} for the plain-text fallback (no Jinja template).
std::vector<ChatMessage> plainMessages(const nlohmann::ordered_json& messages) {
  std::vector<ChatMessage> out;
  for (const auto& m : messages) {
    std::string text;
    const auto content = m.value("content", nlohmann::ordered_json());
    if (content.is_string()) text = content.get<std::string>();
    else if (content.is_array())
      for (const auto& part : content)
        if (part.is_object() && part.contains("text") && part["text"].is_string()) text += part["text"].get<std::string>();
    out.push_back({m["role"].get<std::string>(), text});
  }
  return out;
}

void checkArguments(const ArgParser& args) {
  const int sources = int(args.has("text")) + int(args.has("file")) + int(args.has("chat"));
  if (sources != 1) throw UsageError("give exactly one of --text TEXT, --file F or --chat MESSAGES.json");
  if (!args.has("chat") && (args.has("add-generation-prompt") || args.has("chat-template-kwargs")))
    throw UsageError("--add-generation-prompt and --chat-template-kwargs need --chat");
  if (auto kwargs = args.value("chat-template-kwargs")) {
    json j;
    try {
      j = parseJson(*kwargs);
    } catch (const json::exception&) {
      throw UsageError("--chat-template-kwargs " + *kwargs + ": not valid JSON");
    }
    if (!j.is_object()) throw UsageError("--chat-template-kwargs " + *kwargs + ": expected a JSON object");
  }
}

int tokenize(int argc, char** argv) {
  ArgParser args = makeParser();
  if (!args.parse(argc, argv)) return 0;
  checkArguments(args);
  const std::string dir = args.value("model") ? *args.value("model") : defaultModelDir();
  const TokenizerFiles files = loadTokenizerFiles(dir);
  std::string text;
  std::vector<int> ids;
  if (auto chat = args.value("chat")) {
    const nlohmann::ordered_json messages = readMessages(*chat);
    const auto kwargs = parseOrderedJson(args.stringOr("chat-template-kwargs", "{}"));
    const bool generationPrompt = args.has("add-generation-prompt");
    if (files.chatTemplate.usesJinja()) {
      // The whole OpenAI message (content parts, tool calls) reaches the template; a
      // template error is an error here, not a silent fallback.
      text = files.chatTemplate.renderStrict(messages, generationPrompt, kwargs);
    } else {
      text = files.chatTemplate.render(plainMessages(messages), generationPrompt);
      std::fprintf(stderr, "notice: %s\n", files.chatTemplate.notice().c_str());
    }
    ids = encodeRenderedChat(*files.tokenizer, files.settings, text);
  } else {
    text = args.value("text") ? *args.value("text") : readFile(*args.value("file"));
    ids = files.encodePrompt(text);
  }
  if (args.has("json")) {
    json tokens = json::array();
    for (int id : ids) tokens.push_back(files.tokenizer->piece(id));
    const json out = {{"text", text}, {"ids", ids}, {"tokens", tokens}};
    std::puts(out.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
  } else {
    for (int id : ids) std::printf("%d\t%s\n", id, readablePiece(*files.tokenizer, id).c_str());
    std::fprintf(stderr, "%zu tokens (%s, %s)\n", ids.size(), tokenizerKindName(files.tokenizer->kind()).c_str(),
                 files.tokenizerPath.c_str());
  }
  return 0;
}

}  // namespace

int runTokenize(int argc, char** argv) { return runReportingErrors("tokenize", tokenize, argc, argv); }

}  // namespace lwb::app
