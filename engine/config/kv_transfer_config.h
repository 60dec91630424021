#pragma once
// vLLM's kv_transfer_config for prefill/decode disaggregation: which connector moves KV
// blocks between the prefill and the decode instance, and this instance's role in it
// (`--kv-transfer-config '{"kv_connector": "SharedStorageConnector", "kv_role":
// "kv_both"}'`). Off by default. The in-process pair (engine/pd_engine.h) uses
// "PdInProcessConnector"; kv_connector_extra_config's "link" names the interconnect
// the simulator prices the transfer over (kvLinkPreset). Two `serve` processes use
// "TcpConnector" (server/kv_connector_tcp.h): the kv_producer listens on kv_ip:kv_port,
// the kv_consumer pulls each request's blocks from there.
#include <string>

namespace lwb {

struct KvTransferConfig {
  std::string kvConnector;           // kv_connector; "" = off
  std::string kvRole = "kv_both";    // kv_role: kv_producer | kv_consumer | kv_both
  std::string link = "nvlink";       // kv_connector_extra_config.link: nvlink | infiniband | roce
  // TcpConnector only (vLLM's names): where the producer listens (0 = any free port; it
  // tells the consumer its port in each answer's kv_transfer_params).
  std::string kvIp = "127.0.0.1";    // kv_ip
  int kvPort = 14579;                // kv_port

  bool tcp() const { return kvConnector == "TcpConnector"; }

  bool enabled() const { return !kvConnector.empty(); }
  std::string toJson() const;  // "" when off
  bool operator==(const KvTransferConfig& o) const = default;
};

// `json`: an object with vLLM's keys (kv_connector, kv_role, kv_connector_extra_config;
// kv_ip and kv_port with TcpConnector, whose kv_role is kv_producer or kv_consumer).
// "" or "{}" = off. Unknown keys, wrong types and unknown values are errors naming the
// key and the value.
KvTransferConfig parseKvTransferConfig(const std::string& json);

// An interconnect a KV transfer crosses, one direction: datasheet bandwidth (no
// protocol efficiency applied: an upper bound on speed) and a one-message latency.
struct KvLink {
  const char* name;
  double bandwidthGBps;  // GB/s = 1e9 bytes per second, one direction
  double latencyUs;
  const char* source;
};
// nvlink: H100 SXM NVLink 4, 900 GB/s in total, 450 GB/s each way (NVIDIA H100 Tensor
// Core GPU datasheet). infiniband: one NDR 400 Gb/s port = 50 GB/s (NVIDIA ConnectX-7
// product brief). roce: one 200 GbE RoCE v2 port = 25 GB/s (NVIDIA ConnectX-6 Dx
// product brief). The latencies are round, assumed figures (a few microseconds for an
// RDMA write), not measurements. Throws lwb::Error naming the value and the choices.
const KvLink& kvLinkPreset(const std::string& name);

}  // namespace lwb
