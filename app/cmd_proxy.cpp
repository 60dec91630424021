// `llm-workbench proxy`: one OpenAI-compatible endpoint in front of a prefill and a
// decode `serve` (P/D disaggregation across processes), as vLLM's toy proxy
// (server/pd_proxy.h).
#include <signal.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "app/commands.h"
#include "server/pd_proxy.h"

namespace lwb::app {
namespace {

ArgParser makeProxyParser() {
  ArgParser p("proxy", "llm-workbench proxy --prefill URL --decode URL [options]",
              "Sends each /v1/completions and /v1/chat/completions request first to the prefill\n"
              "instance (max_tokens 1, kv_transfer_params do_remote_decode), then with the KV\n"
              "transfer's parameters to the decode instance, whose answer (streamed too) it\n"
              "returns; /v1/models goes to the decode instance; /health is 200 once both answer.\n"
              "Start the two with `serve --kv-transfer-config` (TcpConnector; kv_role kv_producer\n"
              "and kv_consumer): see docs/pd.md.");
  p.option("prefill", "URL", "the prefill instance, e.g. http://127.0.0.1:8100");
  p.option("decode", "URL", "the decode instance, e.g. http://127.0.0.1:8200");
  p.option("host", "ADDR", "address to bind (default 127.0.0.1: this machine only)");
  p.option("port", "N", "TCP port (default 8000; 0 = any free port)");
  return p;
}

int proxy(int argc, char** argv) {
  ArgParser p = makeProxyParser();
  if (!p.parse(argc, argv)) return 0;
  server::PdProxyOptions o;
  for (const char* name : {"prefill", "decode"})
    if (p.stringOr(name, "").empty()) throw UsageError(std::string("--") + name + " URL is required");
  o.prefillUrl = p.stringOr("prefill", "");
  o.decodeUrl = p.stringOr("decode", "");
  o.host = p.stringOr("host", o.host);
  o.port = int(p.integer("port", o.port, 0, 65535));
  sigset_t signals;  // blocked before any thread starts: only sigwait sees them
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<server::PdProxy> proxy;
  try {
    proxy = std::make_unique<server::PdProxy>(o);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  proxy->start();
  std::fprintf(stderr, "INFO proxy at %s/v1: prefill %s, decode %s\n", proxy->address().c_str(),
               o.prefillUrl.c_str(), o.decodeUrl.c_str());
  int sig = 0;
  sigwait(&signals, &sig);
  proxy->stop();
  std::fprintf(stderr, "INFO proxy stopped\n");
  return 0;
}

}  // namespace

int runProxy(int argc, char** argv) { return runReportingErrors("proxy", proxy, argc, argv); }

}  // namespace lwb::app
