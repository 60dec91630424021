// P/D across processes when things go wrong: the decode pool too small, the decode side
// gone before or during a pull, the prefill instance gone, malformed frames to either
// side. Each request fails with a clear error (or completes), the servers keep serving,
// and every pool and hold returns to idle.
#include <QtTest>

#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <thread>

#include "common/pd_harness.h"
#include "engine/kv/kv_cache_manager.h"
#include "server/kv_transfer_frame.h"

using namespace lwb;
using namespace lwb::test;

class TestServerPdFaults : public QObject {
  Q_OBJECT
  PdHarness h_;

  // The prefill step by hand: the producer holds the blocks and says where to pull them.
  json offer() {
    const auto r = h_.post(h_.prefill->address(), "/v1/completions",
                           {{"prompt", longPrompt()}, {"max_tokens", 1}, {"temperature", 0},
                            {"kv_transfer_params", {{"do_remote_decode", true}}}});
    if (!r || r->status != 200) return {};
    return lwb::parseJson(r->body)["kv_transfer_params"];
  }

  // Sends raw bytes to the producer's KV port; true when the producer then closed.
  bool producerDrops(const std::string& bytes) {
    const int fd = server::connectTcp("127.0.0.1", h_.prefill->kvPort());
    if (fd < 0) return false;
    server::setSocketTimeouts(fd, 20);
    ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    ::shutdown(fd, SHUT_WR);
    char buf[64];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    server::closeSocket(fd);
    return n == 0;
  }

  bool answersAgain() {
    const auto r = h_.post(h_.proxy->address(), "/v1/completions",
                           {{"prompt", longPrompt()}, {"max_tokens", 3}, {"temperature", 0}});
    return r && r->status == 200 && h_.waitIdle();
  }

 private slots:
  void init() {
    QVERIFY2(h_.model, kBundledModelMissing);
    if (!h_.proxy) h_.start();
  }

  void decodePoolTooSmallFailsClearly() {
    EngineConfig small = pdRoleConfig("kv_consumer");
    small.numGpuBlocksOverride = 2;
    h_.start(small);
    verifyError(h_.post(h_.proxy->address(), "/v1/completions", {{"prompt", longPrompt()}, {"max_tokens", 2}}), 503,
                "no room");
    QVERIFY(h_.waitIdle());
    h_.stop();
  }

  void decodePoolFullWaitsThenCompletes() {
    EngineConfig small = pdRoleConfig("kv_consumer");
    small.numGpuBlocksOverride = 10;
    h_.start(small);
    // Another prompt's 8 blocks held in the decode pool: no room for this one's until
    // they go.
    const std::vector<int> other(16 * 8 + 1, 5);
    auto held = std::make_shared<std::promise<bool>>();
    std::future<bool> got = held->get_future();
    h_.decodeLoop->runOnEngine([held, other](Engine& e) { held->set_value(e.importKvPrefix(-777, other, 8).has_value()); });
    QVERIFY(got.get());
    EngineLoop* decodeLoop = h_.decodeLoop.get();
    std::thread release([decodeLoop] {
      QThread::msleep(300);
      decodeLoop->runOnEngine([](Engine& e) { e.releaseKvHold(-777); });
    });
    const auto r = h_.post(h_.proxy->address(), "/v1/completions",
                           {{"prompt", longPrompt()}, {"max_tokens", 2}, {"temperature", 0}});
    release.join();
    QVERIFY(r);
    QVERIFY2(r->status == 200, r->body.c_str());
    QVERIFY(h_.waitIdle());
    h_.stop();
  }

  void decodeGoneBeforePullReleasesAfterTimeout() {
    QVERIFY(!offer().empty());
    QCOMPARE(h_.prefill->numKvTransfersHeld(), 1);
    bool held = false;  // the snapshot shows the held blocks as owned
    for (int i = 0; i < 100 && !held; ++i, QThread::msleep(10)) held = !PdHarness::idle(*h_.prefillLoop);
    QVERIFY(held);
    QVERIFY(h_.waitIdle());  // released after the hold timeout
  }

  void decodeGoneMidTransfer() {
    const json params = offer();
    QVERIFY(!params.empty());
    // A consumer that asks and hangs up without reading the blocks.
    const int fd = server::connectTcp("127.0.0.1", h_.prefill->kvPort());
    QVERIFY(fd >= 0);
    server::sendKvFrame(fd, server::KvFrame{server::KvFrameType::Pull, params["remote_request_id"].get<uint64_t>(), 0,
                                            0, {}, {}});
    struct linger hard{1, 0};  // reset, not a graceful close: the producer's send fails
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    server::closeSocket(fd);
    QVERIFY(h_.waitIdle());
    // The transfer is gone; a second pull of it is answered with a clear error.
    verifyError(h_.post(h_.decode->address(), "/v1/completions",
                        {{"prompt", longPrompt()}, {"max_tokens", 2}, {"kv_transfer_params", params}}),
                502, "no blocks held");
    QVERIFY(answersAgain());
  }

  void malformedFramesDropTheConnection() {
    const int64_t before = h_.prefill->numKvDroppedConnections();
    server::KvFrame pull{server::KvFrameType::Pull, 1, 0, 0, {}, {}};
    std::string badMagic = server::encodeKvFrame(pull);
    badMagic[0] = 'Z';
    QVERIFY(producerDrops(badMagic));
    std::string hugeLength = server::encodeKvFrame(pull);
    hugeLength[15] = char(0x7F);  // length's top byte
    QVERIFY(producerDrops(hugeLength));
    QVERIFY(producerDrops(server::encodeKvFrame(pull).substr(0, 10)));  // truncated header
    server::KvFrame blocks{server::KvFrameType::Blocks, 1, 4, 16, {7}, "abcd"};
    QVERIFY(producerDrops(server::encodeKvFrame(blocks).substr(0, 30)));  // truncated body
    for (int i = 0; i < 200 && h_.prefill->numKvDroppedConnections() < before + 4; ++i) QThread::msleep(10);
    QCOMPARE(h_.prefill->numKvDroppedConnections(), before + 4);
    QVERIFY(answersAgain());
  }

  void malformedAnswerToTheConsumer() {
    // A fake producer that answers a pull with garbage.
    int port = 0;
    const int listenFd = server::listenTcp("127.0.0.1", 0, &port);
    QVERIFY(listenFd >= 0);
    std::thread fake([listenFd] {
      const int fd = ::accept(listenFd, nullptr, nullptr);
      char head[server::kKvFrameHeaderBytes];
      ::recv(fd, head, sizeof head, MSG_WAITALL);
      const std::string junk(40, 'j');
      ::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL);
      server::closeSocket(fd);
    });
    const json params = {{"do_remote_prefill", true}, {"remote_request_id", 5}, {"remote_host", "127.0.0.1"},
                         {"remote_port", port}, {"remote_num_blocks", 3}};
    verifyError(h_.post(h_.decode->address(), "/v1/completions",
                        {{"prompt", longPrompt()}, {"max_tokens", 2}, {"kv_transfer_params", params}}),
                502, "bad magic");
    fake.join();
    server::closeSocket(listenFd);
    QVERIFY(h_.waitIdle());
    QVERIFY(answersAgain());
  }

  void producerUnreachableAfterRetries() {
    int port = 0;  // a port nobody listens on any more
    server::closeSocket(server::listenTcp("127.0.0.1", 0, &port));
    const json params = {{"do_remote_prefill", true}, {"remote_request_id", 1}, {"remote_host", "127.0.0.1"},
                         {"remote_port", port}, {"remote_num_blocks", 3}};
    verifyError(h_.post(h_.decode->address(), "/v1/completions",
                        {{"prompt", longPrompt()}, {"max_tokens", 2}, {"kv_transfer_params", params}}),
                502, "cannot reach the prefill instance's KV connector");
    QVERIFY(h_.waitIdle());
  }

  void prefillGoneIsA502() {
    h_.prefill.reset();  // the prefill process is gone
    verifyError(h_.post(h_.proxy->address(), "/v1/completions", {{"prompt", longPrompt()}, {"max_tokens", 2}}), 502,
                "prefill instance");
    const auto health = PdHarness::clientOf(h_.proxy->address()).Get("/health");
    QVERIFY(health);
    QCOMPARE(health->status, 503);
    QVERIFY2(health->body.find("prefill instance") != std::string::npos, health->body.c_str());
    QVERIFY(h_.waitIdle());
    h_.stop();
  }

  void cleanupTestCase() { h_.stop(); }
};

QTEST_GUILESS_MAIN(TestServerPdFaults)
#include "tst_server_pd_faults.moc"
