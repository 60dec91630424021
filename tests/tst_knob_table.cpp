// The knob table walked knob by knob: every knob round-trips JSON and the command line,
// validation refuses out-of-range values naming the knob and its range, change markers
// and the structural diff follow the table, old saved runs still open, and the man
// page lists exactly the table's knobs.
#include <QtTest>

#include <QFile>
#include <set>

#include "app/cli/args.h"
#include "app/cli/bench_options.h"
#include "app/cli/knob_man.h"
#include "engine/common/json.h"
#include "engine/config/config_json.h"
#include "engine/config/knobs.h"

using namespace lwb;

namespace {

// A valid value other than the default, for any knob.
KnobValue otherValue(const Knob& k) {
  const KnobValue d = k.get(EngineConfig{});
  switch (k.kind) {
    case KnobKind::Bool:
      return !std::get<bool>(d);
    case KnobKind::Real:  // more digits than %g keeps: the command line must carry them all
      return k.realMin + (k.realMax - k.realMin) * 0.7123456789012345;
    case KnobKind::Choice:
      for (std::string_view c : k.choices)
        if (std::string(c) != std::get<std::string>(d)) return std::string(c);
      break;
    case KnobKind::Json: {  // the canonical text, as the getter writes it
      EngineConfig c;
      if (k.name == knob::kKvTransferConfig)
        k.set(c, std::string(R"({"kv_connector": "PdInProcessConnector", "kv_connector_extra_config": {"link": "roce"}})"));
      else
        k.set(c, std::string(R"({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4})"));
      return k.get(c);
    }
    case KnobKind::Text:
      return std::get<std::string>(d) + "-other";
    case KnobKind::Int: {
      const int64_t v = std::get<int64_t>(d) == k.max ? k.min : k.max;
      return v;
    }
  }
  return d;
}

// Values the table must refuse.
std::vector<KnobValue> outOfRange(const Knob& k) {
  std::vector<KnobValue> v;  // pushed one by one: GCC 12 warns about a braced list of variants
  if (k.name == knob::kKvTransferConfig) {
    v.push_back(std::string(R"({"kv_connector": "PdInProcessConnector", "bogus": 1})"));
    v.push_back(std::string(R"({"kv_connector": "PdInProcessConnector", "kv_role": "kv_99"})"));
    v.push_back(std::string("[1, 2]"));
  } else if (k.kind == KnobKind::Json) {
    v.push_back(std::string(R"({"method": "ngram", "num_speculative_tokens": 99})"));
    v.push_back(std::string(R"({"method": "ngram", "num_speculative_tokens": 2, "bogus": 1})"));
    v.push_back(std::string("[1, 2]"));
  } else if (k.kind == KnobKind::Real) {
    v.push_back(k.realMin);
    v.push_back(k.realMax * 2);
  } else if (k.kind == KnobKind::Choice) {
    v.push_back(std::string("bogus"));
  } else if (k.kind == KnobKind::Text) {
    v.push_back(std::string());
  } else if (k.kind == KnobKind::Int) {
    v.push_back(k.min - 1);
    v.push_back(k.max + 1);
    if (k.powerOfTwo) v.push_back(int64_t(3) * k.min);  // 3: in range, not a power of two
  }
  return v;
}

// The command-line words that set `v` ("--max-num-seqs 7", "--no-enable-prefix-caching").
std::vector<std::string> words(const Knob& k, const KnobValue& v) {
  if (k.kind == KnobKind::Bool) return {std::get<bool>(v) ? "--" + k.flag : "--no-" + k.flag};
  std::string text = k.format(v);
  if (k.kind == KnobKind::Int) text = std::to_string(std::get<int64_t>(v));
  return {"--" + k.flag, text};
}

// What the refusal of `bad` must say: the range, or for a JSON knob the field at fault.
QString expectedIn(const Knob& k, const KnobValue& bad) {
  if (k.kind == KnobKind::Text) return "expected a value";
  if (k.kind != KnobKind::Json) return QString::fromStdString(k.expectation());
  const std::string& text = std::get<std::string>(bad);
  if (text.find("bogus") != std::string::npos) return "unknown key \"bogus\"";
  if (text.find("kv_99") != std::string::npos) return "kv_role \"kv_99\"; expected kv_producer";
  if (text.find("99") != std::string::npos) return "num_speculative_tokens is 99; expected 1..16";
  return "is not a JSON object";
}

QString usageErrorOf(const std::vector<std::string>& args) {
  try {
    app::parseBenchArgs(args);
  } catch (const app::UsageError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestKnobTable : public QObject {
  Q_OBJECT

 private slots:
  void everyKnobIsDeclaredWhole() {
    std::set<std::string_view> names;
    for (const Knob& k : knobTable()) {
      QVERIFY2(names.insert(k.name).second, k.flag.c_str());
      QVERIFY2(!k.help.empty() && k.help.find('\n') == std::string_view::npos, k.flag.c_str());
      QVERIFY(k.get != nullptr && k.set != nullptr);
      std::string dashed(k.name);
      for (char& c : dashed) c = c == '_' ? '-' : c;
      QCOMPARE(k.flag, dashed);
      QCOMPARE(findKnob(k.name), &k);
      QCOMPARE(findKnobByFlag(k.flag), &k);
      k.check(k.get(EngineConfig{}));  // the defaults are valid
    }
    // The knobs that exist today, the newer ones included.
    for (const char* n : {"max_num_batched_tokens", "max_num_seqs", "enable_chunked_prefill", "enable_prefix_caching",
                          "long_prefill_token_threshold", "scheduling_policy", "max_model_len",
                          "scheduler_reserve_full_isl", "block_size", "kv_cache_memory_bytes",
                          "num_gpu_blocks_override", "backend", "threads", "gpu_memory_utilization", "quantization",
                          "kv_cache_dtype", "speculative_config", "sim_hardware", "tensor_parallel_size",
                          "kv_transfer_config"})
      QVERIFY2(findKnob(n) != nullptr, n);
    QCOMPARE(int(knobTable().size()), 20);
    EngineConfig{}.validate();
  }

  void everyKnobRoundTripsJson() {
    for (const Knob& k : knobTable()) {
      EngineConfig c;
      const KnobValue v = otherValue(k);
      QVERIFY2(v != k.get(EngineConfig{}), k.flag.c_str());
      k.set(c, v);
      const nlohmann::json j = configToJson(c);
      QVERIFY2(j.contains(std::string(k.name)), k.flag.c_str());
      const EngineConfig back = configFromJson(j);
      QVERIFY2(k.get(back) == v, k.flag.c_str());
      QCOMPARE(configToJson(back), j);
      QCOMPARE(int(j.size()), int(knobTable().size()));
      // bench --json writes the same keys.
      QCOMPARE(app::benchConfigJson(WorkloadOptions{}, c)[std::string(k.name)], j[std::string(k.name)]);
    }
  }

  void everyKnobRoundTripsTheCommandLine() {
    for (const Knob& k : knobTable()) {
      const KnobValue v = otherValue(k);
      std::vector<std::string> benchWords = words(k, v);
      if (k.name == knob::kKvTransferConfig) benchWords.insert(benchWords.end(), {"--pd", "1:1"});  // a pair's knob
      const app::BenchOptions o = app::parseBenchArgs(benchWords);
      QVERIFY2(k.get(o.engine) == v, k.flag.c_str());
      // Every other knob kept its default.
      for (const Knob& other : knobTable())
        if (&other != &k) QVERIFY2(other.get(o.engine) == other.get(EngineConfig{}), other.flag.c_str());
      // The parser serve, generate and the window use reads the same flags.
      app::ArgParser p("x", "x", "x");
      p.knobOptions();
      p.parseOnly(words(k, v));
      EngineConfig c;
      p.applyKnobs(c);
      QVERIFY2(k.get(c) == v, k.flag.c_str());
      QVERIFY2(QString::fromStdString(p.helpText()).contains(QString::fromStdString("--" + k.flag)), k.flag.c_str());
    }
    // A boolean knob: the last of --x / --no-x wins.
    const Knob& caching = *findKnob(knob::kEnablePrefixCaching);
    QVERIFY(std::get<bool>(caching.get(
        app::parseBenchArgs({"--no-enable-prefix-caching", "--enable-prefix-caching"}).engine)));
    QVERIFY(!std::get<bool>(caching.get(
        app::parseBenchArgs({"--enable-prefix-caching", "--no-enable-prefix-caching"}).engine)));
  }

  void outOfRangeValuesNameTheKnobAndTheRange() {
    for (const Knob& k : knobTable()) {
      for (const KnobValue& bad : outOfRange(k)) {
        try {
          EngineConfig c;
          k.set(c, bad);  // an enum knob refuses an unknown choice here already
          c.validate();
          QFAIL(("accepted " + k.format(bad) + " for " + std::string(k.name)).c_str());
        } catch (const Error& e) {
          const QString what = e.what();
          QVERIFY2(what.startsWith(QString::fromUtf8(k.name.data(), int(k.name.size())) + ":"), e.what());
          QVERIFY2(what.contains(expectedIn(k, bad)), e.what());
        }
        const QString cli = usageErrorOf(words(k, bad));
        QVERIFY2(cli.contains(QString::fromStdString("--" + k.flag)), qPrintable(cli));
        QVERIFY2(cli.contains(expectedIn(k, bad)), qPrintable(cli));
      }
    }
    QVERIFY(usageErrorOf({"--max-num-seqs", "many"}).contains("--max-num-seqs many"));
  }

  void changesAreDescribedAndClassifiedByTheTable() {
    QCOMPARE(describeChange(EngineConfig{}, EngineConfig{}), std::string("no change"));
    for (const Knob& k : knobTable()) {
      EngineConfig c;
      k.set(c, otherValue(k));
      const std::string d = describeChange(EngineConfig{}, c);
      QVERIFY2(d.rfind(std::string(k.name) + " " + k.format(k.get(EngineConfig{})) + " \u2192 ", 0) == 0, d.c_str());
      QCOMPARE(c.structuralDiffers(EngineConfig{}), k.structural());
      QCOMPARE(c.executorDiffers(EngineConfig{}), k.apply == KnobApply::RebuildExecutor);
    }
  }

  // speculative_config is live for n-gram settings and structural for a draft model
  // switch, by the table's predicate; its change markers show the JSON.
  void speculativeConfigIsStructuralOnlyForADraftModel() {
    const Knob& k = *findKnob(knob::kSpeculativeConfig);
    auto with = [&k](const std::string& json) {
      EngineConfig c;
      k.set(c, k.parse(json));
      return c;
    };
    const EngineConfig off, ngram = with(R"({"method": "ngram", "num_speculative_tokens": 4})"),
                            ngram2 = with(R"({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 3})"),
                            draft = with(R"({"model": "/m/a", "num_speculative_tokens": 3})"),
                            draftB = with(R"({"model": "/m/b", "num_speculative_tokens": 3})"),
                            draftK = with(R"({"model": "/m/a", "num_speculative_tokens": 2})");
    QVERIFY(!off.structuralDiffers(ngram) && !ngram.structuralDiffers(ngram2) && !ngram2.structuralDiffers(off));
    QVERIFY(off.structuralDiffers(draft) && ngram.structuralDiffers(draft) && draft.structuralDiffers(off));
    QVERIFY(draft.structuralDiffers(draftB) && draft.structuralDiffers(draftK) && !draft.structuralDiffers(draft));
    QVERIFY(!draft.executorDiffers(draftB));
    QVERIFY(k.applyText().find("draft model") != std::string::npos);
    QCOMPARE(describeChange(off, ngram),
             std::string("speculative_config off \u2192 "
                         R"({"method":"ngram","num_speculative_tokens":4,"prompt_lookup_max":5,"prompt_lookup_min":5})"));
    // JSON: an object in, an object out, null when off; old runs without the key open as off.
    QVERIFY(configToJson(off)["speculative_config"].is_null());
    QCOMPARE(configToJson(draft)["speculative_config"]["model"], nlohmann::json("/m/a"));
    QVERIFY(configFromJson(configToJson(draft)).speculative == draft.speculative);
    QVERIFY(!configFromJson(nlohmann::json{{"max_num_seqs", 4}}).speculative.enabled());
    for (const char* text : {"", "{}", "null", "off"}) QVERIFY(!with(text).speculative.enabled());
    try {
      configFromJson(nlohmann::json{{"speculative_config", {{"method", "ngram"}}}});
      QFAIL("accepted a speculative_config without num_speculative_tokens");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).startsWith("speculative_config: num_speculative_tokens"), e.what());
    }
    try {
      configFromJson(nlohmann::json{{"speculative_config", 4}});
      QFAIL("accepted a number");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).startsWith("speculative_config: expected a JSON object"), e.what());
    }
    // The CLI flag takes the text as vLLM does.
    const app::BenchOptions o = app::parseBenchArgs({"--speculative-config", R"({"model": "/m/a", "num_speculative_tokens": 3})"});
    QVERIFY(o.engine.speculative == draft.speculative);
  }

  // Runs saved before the table: the GUI wrote quantization "" and no gpu_memory_utilization.
  void oldSavedRunConfigsStillOpen() {
    const auto old = lwb::parseJson(R"({"max_num_batched_tokens": 512, "max_num_seqs": 0,
        "enable_chunked_prefill": false, "enable_prefix_caching": true, "long_prefill_token_threshold": 0,
        "scheduler_reserve_full_isl": true, "scheduling_policy": "priority", "max_model_len": 0, "block_size": 32,
        "kv_cache_memory_bytes": 0, "num_gpu_blocks_override": 64, "backend": "cpu", "threads": 2,
        "quantization": "", "some_future_field": 1})");
    const EngineConfig c = configFromJson(old);
    QCOMPARE(c.maxNumBatchedTokens, 512);
    QVERIFY(!c.enableChunkedPrefill);
    QVERIFY(c.schedulingPolicy == SchedulingPolicy::Priority);
    QCOMPARE(c.blockSize, 32);
    QCOMPARE(c.numGpuBlocksOverride, 64);
    QCOMPARE(c.executor.quantization, std::string());
    QCOMPARE(c.executor.gpuMemoryUtilization, EngineConfig{}.executor.gpuMemoryUtilization);
    c.validate();
    try {
      configFromJson(nlohmann::json{{"block_size", "big"}});
      QFAIL("accepted a string block_size");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("block_size"), e.what());
    }
  }

  // packaging/llm-workbench.1 holds the generated section verbatim; on a mismatch the
  // expected text is written to the test artefacts to paste in.
  void manPageListsExactlyTheTable() {
    QFile f(QStringLiteral(LWB_SOURCE_DIR "/packaging/llm-workbench.1"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const std::string page = f.readAll().toStdString();
    const std::string section = app::knobManSection();
    const size_t begin = page.find(app::kManKnobsBegin), end = page.find(app::kManKnobsEnd);
    QVERIFY2(begin != std::string::npos && end != std::string::npos, "the man page lacks the knob markers");
    const std::string inPage = page.substr(begin, end - begin + std::string(app::kManKnobsEnd).size() + 1);
    if (inPage != section) {
      const QByteArray dir = qgetenv("LWB_TEST_ARTIFACTS");
      QFile out(QString::fromUtf8(dir.isEmpty() ? QByteArray(".") : dir) + "/knobs.1");
      if (out.open(QIODevice::WriteOnly)) out.write(section.c_str());
      QFAIL(qPrintable("the man page's knob section differs from the table; expected text in " + out.fileName()));
    }
    for (const Knob& k : knobTable()) QVERIFY2(section.find("(vLLM: " + std::string(k.name) + ")") != std::string::npos, k.flag.c_str());
  }
};

QTEST_APPLESS_MAIN(TestKnobTable)
#include "tst_knob_table.moc"
