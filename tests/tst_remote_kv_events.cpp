// vLLM's KV-cache event stream end to end: the engine records BlockStored / BlockRemoved
// / AllBlocksCleared, `serve`'s publisher sends them over ZeroMQ as vLLM does (msgpack,
// topic / seq / payload, replay socket), and the remote subscriber rebuilds the block
// map, which must equal the server's own block table after a load run with evictions.
// Malformed frames and payloads are reported, never thrown or crashed on.
#include <QtTest>

#include <zmq.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <thread>

#include "common/bundled_model.h"
#include "common/cli_runner.h"
#include "engine/common/error.h"
#include "engine/engine_loop.h"
#include "engine/model/model.h"
#include "engine/model/tokenizer.h"
#include "wire/kv_event_codec.h"
#include "remote/kv_event_subscriber.h"
#include "remote/remote_bench.h"
#include "remote/remote_prefix_miss.h"
#include "remote/remote_report.h"
#include "wire/zmq_socket.h"
#include "server/api_server.h"
#include "server/kv_event_publisher.h"

using namespace lwb;
using namespace lwb::remote;
using nlohmann::json;

namespace {

template <class F>
QString errorOf(F f) {
  try {
    f();
  } catch (const lwb::Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

template <class Pred>
bool waitFor(Pred pred, int timeoutMs = 10000) {
  for (int waited = 0; waited < timeoutMs; waited += 10) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pred();
}

// The server's own table: hash → number of blocks carrying it.
std::map<BlockHashText, int> serverTable(const EngineSnapshot& s) {
  std::map<BlockHashText, int> out;
  for (const KvBlockInfo& b : s.kvBlocks)
    if (b.hasHash) ++out[blockHashText(b.hash)];
  return out;
}

std::map<BlockHashText, int> mapTable(const RemoteBlockMap& m) {
  std::map<BlockHashText, int> out;
  for (const auto& [hash, block] : m.blocks()) out[hash] = block.numCopies;
  return out;
}

std::vector<uint8_t> bytesOf(const std::string& s) { return {s.begin(), s.end()}; }

KvEventBatch sampleBatch() {
  KvEventBatch b;
  b.time = 1700000000.25;
  b.events.push_back(KvBlockStored{{11, 12}, std::nullopt, {1, 2, 3, 4}, 2});
  b.events.push_back(KvBlockStored{{13}, 12, {5, 6}, 2});
  b.events.push_back(KvBlockRemoved{{11}});
  b.events.push_back(KvAllBlocksCleared{});
  return b;
}

}  // namespace

class TestRemoteKvEvents : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QVERIFY2(test::bundledModel(), test::kBundledModelMissing); }

  // The array-like layout of vLLM's msgspec structs, field by field.
  void encodesVllmLayout() {
    const json j = json::from_msgpack(encodeKvEventBatch(sampleBatch(), "GPU", 0));
    QVERIFY(j.is_array());
    QCOMPARE(j.size(), size_t(3));  // ts, events, data_parallel_rank
    QCOMPARE(j[0].get<double>(), 1700000000.25);
    QCOMPARE(j[2].get<int>(), 0);
    const json& stored = j[1][0];
    QCOMPARE(stored.size(), size_t(7));
    QCOMPARE(stored[0].get<std::string>(), std::string("BlockStored"));
    QCOMPARE(stored[1], json::array({11, 12}));
    QVERIFY(stored[2].is_null());  // the first block of a prompt has no parent
    QCOMPARE(stored[3], json::array({1, 2, 3, 4}));
    QCOMPARE(stored[4].get<int>(), 2);
    QVERIFY(stored[5].is_null());  // lora_id
    QCOMPARE(stored[6].get<std::string>(), std::string("GPU"));
    QCOMPARE(j[1][1][2].get<uint64_t>(), uint64_t(12));
    QCOMPARE(j[1][2], json::array({"BlockRemoved", {11}, "GPU"}));
    QCOMPARE(j[1][3], json::array({"AllBlocksCleared"}));
    QCOMPARE(encodeSeq(258), (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 1, 2}));
    QCOMPARE(decodeSeq(encodeSeq(-1)), int64_t(-1));
  }

  void decodesBothForms() {
    const RemoteKvBatch a = decodeKvEventBatch(encodeKvEventBatch(sampleBatch(), "CPU", 0));
    QCOMPARE(a.events.size(), size_t(4));
    QCOMPARE(a.dataParallelRank.value(), 0);
    QCOMPARE(a.events[1].parentBlockHash.value(), std::string("12"));
    QCOMPARE(a.events[1].medium, std::string("CPU"));
    RemoteBlockMap m;
    for (size_t i = 0; i < 3; ++i) m.apply(a.events[i]);
    QCOMPARE(m.numBlocks(), 2);  // 11 stored then removed
    QCOMPARE(m.blocks().at("12").parent.value(), std::string("11"));  // a multi-block event is a chain
    QCOMPARE(m.blocks().at("12").tokenIds, (std::vector<int>{3, 4}));
    QCOMPARE(m.chainLength("13"), 2);
    m.apply(a.events[3]);
    QCOMPARE(m.numBlocks(), 0);
    // The map form with bytes hashes (newer vLLM) and a trailing field we do not know.
    json stored = {{"type", "BlockStored"}, {"block_hashes", {json::binary({0xab, 0x01})}},
                   {"parent_block_hash", nullptr}, {"token_ids", {7, 8}}, {"block_size", 2},
                   {"lora_id", nullptr}, {"medium", "GPU"}, {"lora_name", nullptr}};
    const RemoteKvBatch b = decodeKvEventBatch(json::to_msgpack(json{{"ts", 1.5}, {"events", {stored}}}));
    QCOMPARE(b.events.at(0).blockHashes.at(0), std::string("0xab01"));
    QVERIFY(!b.dataParallelRank);
  }

  void malformedPayloadsNameTheProblem() {
    auto bad = [](const json& j) { return errorOf([&] { decodeKvEventBatch(json::to_msgpack(j)); }); };
    QVERIFY(errorOf([] { decodeKvEventBatch(bytesOf("\xc1garbage")); }).contains("not msgpack"));
    QVERIFY(errorOf([] { decodeKvEventBatch({}); }).contains("not msgpack"));
    QVERIFY(bad(json(42)).contains("expected [ts, events"));
    QVERIFY(bad(json::array({"x", json::array()})).contains("ts"));
    QVERIFY(bad(json::array({1.0, 5})).contains("events"));
    QVERIFY(bad(json::array({1.0, {json::array({"BlockMoved"})}})).contains("unknown tag 'BlockMoved'"));
    QVERIFY(bad(json::array({1.0, {json::array({"BlockStored", {1}, nullptr, {1, 2}, 0, nullptr, "GPU"})}}))
                .contains("block_size"));
    QVERIFY(bad(json::array({1.0, {json::array({"BlockStored", {1}, nullptr, {1}, 2, nullptr, "GPU"})}}))
                .contains("1 token_ids for 1 blocks of 2"));
    QVERIFY(bad(json::array({1.0, {json::array({"BlockRemoved", {"h"}, "GPU"})}})).contains("block_hashes"));
    QVERIFY(bad(json::array({1.0, {json::array({"BlockRemoved", {1}, 3})}})).contains("medium"));
    QVERIFY(errorOf([] { decodeSeq({1, 2, 3}); }).contains("8 bytes"));
  }

  void parsesVllmConfig() {
    // (JSON built, not spelled: moc reads "//" inside a raw string as a comment.)
    auto c = server::parseKvEventsConfig(json{{"enable_kv_cache_events", true}, {"endpoint", "tcp://*:6000"},
                                              {"replay_endpoint", "tcp://*:6001"}, {"topic", "kv"}}
                                             .dump());
    QVERIFY(c.active());
    QCOMPARE(c.publisher, std::string("zmq"));
    QCOMPARE(c.replayEndpoint, std::string("tcp://*:6001"));
    QVERIFY(!server::parseKvEventsConfig(R"({"enable_kv_cache_events": false})").active());
    QVERIFY(!server::parseKvEventsConfig(R"({"enable_kv_cache_events": true, "publisher": "null"})").active());
    QVERIFY(errorOf([] { server::parseKvEventsConfig("{"); }).contains("not JSON"));
    QVERIFY(errorOf([] { server::parseKvEventsConfig(R"({"enable": true})"); }).contains("unknown field \"enable\""));
    QVERIFY(errorOf([] { server::parseKvEventsConfig(R"({"publisher": "kafka"})"); }).contains("\"kafka\""));
    QVERIFY(errorOf([] { server::parseKvEventsConfig(R"({"buffer_steps": "x"})"); }).contains("buffer_steps"));
    QVERIFY(errorOf([] { server::parseKvEventsConfig(R"({"hwm": 0})"); }).contains("hwm"));
  }

  void endToEndBlockMapEqualsServerTable();
  void explainsMissesFromEvents();
  void explainsRemoteMissesAgainstServe();
  void malformedFramesAreReported();
  void serveRejectsBadConfig() {
    const auto r = test::runWorkbench({"serve", "--port", "0", "--kv-events-config", R"({"enable_kv_cache_events": 1})"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("enable_kv_cache_events"), r.err.constData());
  }
};

// A small pool (evictions happen), a shared prefix (hits and duplicates), served over
// HTTP while the publisher streams events to a subscriber that joins through the replay
// socket.
void TestRemoteKvEvents::endToEndBlockMapEqualsServerTable() {
  EngineConfig config = test::cpuTestConfig();
  config.numGpuBlocksOverride = 40;
  EngineLoop loop(test::bundledModel(), config);
  server::ServerOptions so;
  so.port = 0;
  so.servedModelName = "austen";
  server::ApiServer api(loop, so);
  const std::string url = "http://127.0.0.1:" + std::to_string(api.start());
  server::KvEventsConfig kc = server::parseKvEventsConfig(
      json{{"enable_kv_cache_events", true}, {"endpoint", "tcp://127.0.0.1:*"},
           {"replay_endpoint", "tcp://127.0.0.1:*"}, {"topic", "kv"}}
          .dump());
  server::KvEventPublisher publisher(loop, kc);
  publisher.start();
  KvEventSubscriber sub({publisher.endpoint(), publisher.replayEndpoint(), "kv"});
  sub.start();

  const Tokenizer& tok = *test::bundledModel()->tokenizer;
  WorkloadOptions w;
  w.numPrompts = 24;
  w.requestRate = std::numeric_limits<double>::infinity();
  w.inputLen = 70;
  w.outputLen = 10;
  w.sharedPrefixLen = 32;
  w.ignoreEos = true;
  w.seed = 5;
  RemoteBenchOptions ro;
  ro.client.url = url;
  ro.model = "austen";
  ro.scrapeIntervalSeconds = 0.2;
  const RemoteBenchRun run = runRemoteBenchmark(ro, makeWorkload(w, tok.ordinaryIds(), tok.bosId()));
  QCOMPARE(run.report.completed, 24);

  // Idle, every batch published and received, the final snapshot out: then the two agree.
  auto settled = [&] {
    const auto s = loop.snapshot();
    return s->numRunning == 0 && s->numWaiting == 0 && sub.stats().lastSeq == publisher.numPublished() - 1 &&
           serverTable(*s) == mapTable(sub.blockMap());
  };
  const bool agreed = waitFor(settled);
  const KvEventSubscriberStats st = sub.stats();
  const RemoteBlockMap m = sub.blockMap();
  const auto table = serverTable(*loop.snapshot());
  qInfo("%lld batches published, %lld received (%lld replayed), %lld blocks stored, %lld removed; %d cached "
        "hashes in the server's table, %d in the map",
        (long long)publisher.numPublished(), (long long)st.numBatches, (long long)st.numReplayed,
        (long long)m.numStored(), (long long)m.numRemoved(), int(table.size()), int(m.blocks().size()));
  QVERIFY2(agreed, st.lastError.c_str());
  QVERIFY(!table.empty());
  QVERIFY(m.numRemoved() > 0);  // the pool was small enough to evict
  QCOMPARE(st.numMalformed, int64_t(0));
  QCOMPARE(st.numMissed, int64_t(0));
  QCOMPARE(m.numUnknownRemovals(), int64_t(0));
  for (const auto& [hash, block] : m.blocks()) {
    QCOMPARE(int(block.tokenIds.size()), m.blockSize());
    QCOMPARE(block.medium, std::string("CPU"));
  }

  // A reader that comes later learns the whole state from the engine at once.
  auto late = loop.subscribeKvEvents();
  std::vector<KvEventBatch> got;
  QVERIFY(waitFor([&] {
    for (auto& b : late->waitAndDrain(std::chrono::milliseconds(0))) got.push_back(std::move(b));
    return !got.empty();
  }));
  RemoteBlockMap fromLate;
  for (const auto& b : got) fromLate.apply(decodeKvEventBatch(encodeKvEventBatch(b, "CPU", 0)));
  QCOMPARE(mapTable(fromLate), table);
  // So does a subscriber that joins after the run, through the replay socket.
  KvEventSubscriber second({publisher.endpoint(), publisher.replayEndpoint(), "kv"});
  second.start();
  QVERIFY(waitFor([&] { return mapTable(second.blockMap()) == serverTable(*loop.snapshot()); }));
  QVERIFY(second.stats().numReplayed > 0);
}

// Hand-made events, block size 2: what each stored and removed block makes of a prompt.
void TestRemoteKvEvents::explainsMissesFromEvents() {
  RemotePrefixIndex idx(4);
  QCOMPARE(explainRemoteMiss(idx.lookup({1, 2, 3}), 0).known, false);  // no block size yet
  RemoteKvBatch b;
  auto stored = [](std::vector<BlockHashText> h, std::optional<BlockHashText> parent, std::vector<int> ids) {
    RemoteKvEvent e;
    e.kind = RemoteKvEvent::Kind::BlockStored;
    e.blockHashes = std::move(h);
    e.parentBlockHash = std::move(parent);
    e.tokenIds = std::move(ids);
    e.blockSize = 2;
    return e;
  };
  RemoteKvEvent removed;
  removed.kind = RemoteKvEvent::Kind::BlockRemoved;
  removed.blockHashes = {"b"};
  b.events = {stored({"a", "b"}, std::nullopt, {1, 2, 3, 4}), stored({"c"}, "b", {5, 6}), removed};
  idx.apply(b);
  // [1 2][3 4][5 6][7]: a held, b removed, c held behind it; 1 partial token.
  RemotePromptLookup l = idx.lookup({1, 2, 3, 4, 5, 6, 7});
  QCOMPARE(l.blocks, (std::vector<RemoteBlockSeen>{RemoteBlockSeen::Held, RemoteBlockSeen::Removed, RemoteBlockSeen::Held}));
  RemotePrefixMiss m = explainRemoteMiss(l, 2);
  QVERIFY(m.known);
  QCOMPARE(m.miss[PrefixMissReason::PartialBlock], 1);
  QCOMPARE(m.miss[PrefixMissReason::Evicted], 2);
  QCOMPARE(m.miss[PrefixMissReason::BehindMiss], 2);
  QCOMPARE(2 + m.miss.numMissed() + m.heldWhenSent, 7);
  // [1 2][3 9][8 8]: diverges at token 3 (a sibling [3 4] was seen), then cold.
  m = explainRemoteMiss(idx.lookup({1, 2, 3, 9, 8, 8}), 2);
  QCOMPARE(m.miss[PrefixMissReason::Diverged], 2);
  QCOMPARE(m.miss.divergedAtToken, 3);
  QCOMPARE(m.miss[PrefixMissReason::Cold], 2);
  // [1 2]: a held last block the server must compute for its logits.
  m = explainRemoteMiss(idx.lookup({1, 2}), 0);
  QCOMPARE(m.miss[PrefixMissReason::LastToken], 2);
  // Held when sent, missed all the same: apart from the reasons.
  m = explainRemoteMiss(idx.lookup({1, 2, 7}), 0);
  QCOMPARE(m.heldWhenSent, 2);
  QCOMPARE(m.miss.numMissed(), 1);
  QVERIFY(!explainRemoteMiss(l, std::nullopt).known);
  // The ring forgets the oldest removed blocks beyond 4; a cleared cache is all removed.
  b.events = {stored({"x1", "x2", "x3", "x4", "x5"}, std::nullopt, {9, 9, 9, 9, 9, 9, 9, 9, 9, 9}), {}};
  b.events[1].kind = RemoteKvEvent::Kind::AllBlocksCleared;
  idx.apply(b);
  QCOMPARE(idx.numRemembered(), size_t(4));
  QVERIFY(idx.lookup({1, 2}).blocks.at(0) != RemoteBlockSeen::Held);
}

// Against `serve` on 127.0.0.1 with KV events on, block size 16, a 12-block pool, one
// output token each: a prompt evicted by the load of others, a cold one, one that
// diverges inside its second block and one whose last block is held, every count by hand.
void TestRemoteKvEvents::explainsRemoteMissesAgainstServe() {
  EngineConfig config = test::cpuTestConfig();
  config.numGpuBlocksOverride = 12;
  EngineLoop loop(test::bundledModel(), config);
  server::ServerOptions so;
  so.port = 0;
  so.servedModelName = "austen";
  server::ApiServer api(loop, so);
  const std::string url = "http://127.0.0.1:" + std::to_string(api.start());
  server::KvEventPublisher publisher(
      loop, server::parseKvEventsConfig(json{{"enable_kv_cache_events", true}, {"endpoint", "tcp://127.0.0.1:*"},
                                             {"replay_endpoint", "tcp://127.0.0.1:*"}}
                                            .dump()));
  publisher.start();
  KvEventSubscriber sub({publisher.endpoint(), publisher.replayEndpoint(), ""});
  sub.start();
  ClientOptions co;
  co.url = url;
  co.readTimeoutSeconds = 20;
  OpenAiClient client(co);
  const std::vector<int> ids = test::bundledModel()->tokenizer->ordinaryIds();
  auto slice = [&](int from, int n) { return std::vector<int>(ids.begin() + from, ids.begin() + from + n); };
  int numBadSums = 0;    // requests whose cached + missed tokens are not the prompt's length
  int numUnsettled = 0;  // requests that failed or whose events did not all arrive
  auto send = [&](const std::vector<int>& prompt) -> RemotePrefixMiss {
    const RemotePromptLookup atSend = sub.lookupPrompt(prompt);
    const StreamResult r = client.streamCompletion(
        json{{"model", "austen"}, {"prompt", prompt}, {"max_tokens", 1}, {"temperature", 0}}, [] { return 0.0; });
    // Settled: the prompt's own full blocks reached the subscriber (nothing else runs to
    // evict them), every batch was received and the map is the server's table.
    bool settled = waitFor([&] {
      const auto s = loop.snapshot();
      const RemotePromptLookup own = sub.lookupPrompt(prompt);
      const bool ownHeld = own.blockSize > 0 && int(own.blocks.size()) == int(prompt.size()) / own.blockSize &&
                           std::all_of(own.blocks.begin(), own.blocks.end(),
                                       [](RemoteBlockSeen b) { return b == RemoteBlockSeen::Held; });
      return ownHeld && s->numRunning == 0 && s->numWaiting == 0 &&
             sub.stats().lastSeq == publisher.numPublished() - 1 && serverTable(*s) == mapTable(sub.blockMap());
    });
    if (!r.error.empty() || !settled) ++numUnsettled;
    const RemotePrefixMiss m = explainRemoteMiss(atSend, r.cachedTokens);
    if (m.known && r.cachedTokens.value() + m.miss.numMissed() + m.heldWhenSent != int(prompt.size())) ++numBadSums;
    return m;
  };
  using R = PrefixMissReason;
  const std::vector<int> p = slice(0, 69), q = slice(300, 69);
  // ZeroMQ drops what is published before the subscription is up: warm up with distinct
  // one-block prompts until a BlockStored arrives (the block size is learnt from it).
  QVERIFY(!explainRemoteMiss(sub.lookupPrompt(slice(2000, 20)), 0).known);
  int numWarmUps = 0;
  QVERIFY(waitFor([&] {
    client.streamCompletion(json{{"model", "austen"}, {"prompt", slice(2000 + 20 * numWarmUps++, 20)}, {"max_tokens", 1}},
                            [] { return 0.0; });
    return sub.lookupPrompt({}).blockSize == 16;
  }));
  RemotePrefixMiss m = send(p);  // 4 full blocks never seen, 5 tokens in the partial block
  QVERIFY2(m.known, m.why.c_str());
  QCOMPARE(m.miss[R::Cold], 64);
  QCOMPARE(m.miss[R::PartialBlock], 5);
  for (int j = 0; j < 4; ++j) send(slice(1000 + 100 * j, 69));  // 16 blocks to cache in 12: p goes
  QCOMPARE(sub.lookupPrompt(p).blocks, std::vector<RemoteBlockSeen>(4, RemoteBlockSeen::Removed));
  m = send(p);
  QCOMPARE(m.miss[R::Evicted], 64);
  QCOMPARE(m.miss[R::PartialBlock], 5);
  QCOMPARE(m.miss.numMissed(), 69);
  m = send(q);
  QCOMPARE(m.miss[R::Cold], 64);
  QCOMPARE(m.miss.numMissed(), 69);
  // q's first 21 tokens, then others: block 0 hits, block 1 diverges at token 21.
  std::vector<int> d = slice(300, 21);
  for (int id : slice(500, 48)) d.push_back(id);
  m = send(d);
  QCOMPARE(m.miss[R::Diverged], 16);
  QCOMPARE(m.miss.divergedAtToken, 21);
  QCOMPARE(m.miss[R::Cold], 32);
  QCOMPARE(m.miss[R::PartialBlock], 5);
  QCOMPARE(m.miss.numMissed(), 69 - 16);
  m = send(slice(300, 32));  // q's two first blocks: the second is computed for its logits
  QCOMPARE(m.miss[R::LastToken], 16);
  QCOMPARE(m.miss.numMissed(), 16);
  QCOMPARE(m.heldWhenSent, 0);
  QCOMPARE(numBadSums, 0);
  QCOMPARE(numUnsettled, 0);

  // The same through the remote bench: every request explained, the sum holds.
  WorkloadOptions w;
  w.numPrompts = 8;
  w.requestRate = std::numeric_limits<double>::infinity();
  w.inputLen = 40;
  w.outputLen = 2;
  w.sharedPrefixLen = 16;
  w.ignoreEos = true;
  RemoteBenchOptions ro;
  ro.client.url = url;
  ro.model = "austen";
  ro.maxConcurrency = 1;
  ro.scrapeIntervalSeconds = 0.2;
  ro.kvEvents = &sub;
  const Tokenizer& tok = *test::bundledModel()->tokenizer;
  const RemoteBenchRun run = runRemoteBenchmark(ro, makeWorkload(w, tok.ordinaryIds(), tok.bosId()));
  QCOMPARE(run.report.completed, 8);
  QCOMPARE(run.numPrefixUnexplained, 0);
  for (const BenchRequestRecord& r : run.report.requests) {
    const RequestTimeline& t = r.timeline;
    QVERIFY(t.prefixMiss.accounted);
    QCOMPARE(t.numCachedPromptTokens + t.prefixMiss.numMissed() <= t.numPromptTokens, true);
  }
  const json j = remoteBenchJson(run);
  QVERIFY(j["prefix_cache_missed_tokens"].is_object());
  QVERIFY(j.contains("prefix_cache_missed_held_when_sent_tokens"));
  QVERIFY(QString::fromStdString(formatRemoteSummary(run)).contains("Prompt tokens missed, partial_block:"));
}

// A hand-made publisher sends broken messages; the subscriber counts and describes them
// and still applies the good ones.
void TestRemoteKvEvents::malformedFramesAreReported() {
  ZmqContext ctx;
  ZmqSocket pub(ctx, ZMQ_PUB);
  pub.bind("tcp://127.0.0.1:*");
  KvEventSubscriber sub({pub.lastEndpoint(), "", ""});
  sub.start();
  // PUB drops what it sends before the subscription arrives: repeat batch 0 until it
  // is seen (the subscriber skips the repeats: their sequence number is not new).
  KvEventBatch cleared;
  cleared.events.push_back(KvAllBlocksCleared{});
  QVERIFY(waitFor([&] {
    pub.send({bytesOf("kv"), encodeSeq(0), encodeKvEventBatch(cleared, "GPU", 0)});
    return sub.stats().numBatches == 1;
  }));
  pub.send({bytesOf("kv"), bytesOf("only two frames")});
  pub.send({bytesOf("kv"), {0, 1, 2}, bytesOf("x")});  // a 3-byte sequence number
  pub.send({bytesOf("kv"), encodeSeq(1), bytesOf("\xc1 not msgpack")});
  pub.send({bytesOf("kv"), encodeSeq(2), json::to_msgpack(json{{"x", 1}})});
  pub.send({bytesOf("kv"), encodeSeq(3), json::to_msgpack(json::array({1.0, {json::array({"Nope"})}}))});
  KvEventBatch good;
  good.events.push_back(KvBlockStored{{99}, std::nullopt, {1, 2}, 2});
  pub.send({bytesOf("kv"), encodeSeq(4), encodeKvEventBatch(good, "GPU", 0)});
  QVERIFY(waitFor([&] { return sub.stats().numBatches == 2; }));
  QCOMPARE(sub.stats().numMalformed, int64_t(5));
  QCOMPARE(sub.stats().numMissed, int64_t(0));
  QCOMPARE(sub.blockMap().numBlocks(), 1);
  // A gap nobody can replay: counted as missed, the batch still applies.
  good.events[0] = KvBlockRemoved{{99}};
  pub.send({bytesOf("kv"), encodeSeq(10), encodeKvEventBatch(good, "GPU", 0)});
  QVERIFY(waitFor([&] { return sub.stats().numBatches == 3; }));
  QCOMPARE(sub.stats().numMissed, int64_t(5));
  QVERIFY(QString::fromStdString(sub.stats().lastError).contains("5..9 were missed"));
  QCOMPARE(sub.blockMap().numBlocks(), 0);
  // A subscriber pointed at nothing sensible fails loudly at start.
  KvEventSubscriber wrong({"nonsense://x", "", ""});
  QVERIFY(errorOf([&] { wrong.start(); }).contains("nonsense://x"));
}

QTEST_GUILESS_MAIN(TestRemoteKvEvents)
#include "tst_remote_kv_events.moc"
