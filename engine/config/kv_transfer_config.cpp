#include "engine/config/kv_transfer_config.h"

#include <array>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/config/knobs.h"

namespace lwb {

namespace {

constexpr std::array<KvLink, 3> kLinks = {{
    {"nvlink", 450.0, 2.0, "NVIDIA H100 SXM datasheet: NVLink 4, 900 GB/s bidirectional"},
    {"infiniband", 50.0, 5.0, "NVIDIA ConnectX-7: one NDR InfiniBand port, 400 Gb/s"},
    {"roce", 25.0, 10.0, "NVIDIA ConnectX-6 Dx: one RoCE v2 port, 200 Gb/s Ethernet"},
}};

std::string prefix() { return std::string(knob::kKvTransferConfig) + ": "; }

std::string stringField(const nlohmann::json& v, const std::string& key) {
  check(v.is_string(), prefix() + key + " is " + v.dump() + "; expected a string");
  return v.get<std::string>();
}

}  // namespace

const KvLink& kvLinkPreset(const std::string& name) {
  for (const KvLink& l : kLinks) {
    if (name == l.name) return l;
  }
  throw Error(prefix() + "kv_connector_extra_config.link \"" + name + "\"; expected nvlink, infiniband or roce");
}

std::string KvTransferConfig::toJson() const {
  if (!enabled()) return "";
  nlohmann::json j = {{"kv_connector", kvConnector}, {"kv_role", kvRole},
                      {"kv_connector_extra_config", {{"link", link}}}};
  if (tcp()) {
    j["kv_ip"] = kvIp;
    j["kv_port"] = kvPort;
  }
  return j.dump();
}

namespace {

constexpr const char* kConnectors = "\"PdInProcessConnector\" or \"TcpConnector\"";

int portField(const nlohmann::json& v) {
  check(v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= 65535,
        prefix() + "kv_port is " + v.dump() + "; expected an integer in 0..65535 (0 = any free port)");
  return v.get<int>();
}

void checkConsistent(const KvTransferConfig& c, bool hasIpOrPort, const std::string& ipOrPort) {
  check(c.enabled(), prefix() + "kv_connector is missing; expected " + kConnectors);
  if (!c.tcp()) {
    check(!hasIpOrPort, prefix() + "unknown key \"" + ipOrPort + "\" for " + c.kvConnector +
                            "; kv_ip and kv_port belong to \"TcpConnector\"");
    return;
  }
  check(c.kvRole == "kv_producer" || c.kvRole == "kv_consumer",
        prefix() + "kv_role \"" + c.kvRole + "\" with TcpConnector; expected kv_producer (the prefill "
                   "instance) or kv_consumer (the decode instance)");
  check(!c.kvIp.empty(), prefix() + "kv_ip is empty; expected an address such as \"127.0.0.1\"");
}

}  // namespace

KvTransferConfig parseKvTransferConfig(const std::string& text) {
  KvTransferConfig c;
  if (text.empty()) return c;
  nlohmann::json j = parseJsonOrDiscarded(text);
  check(!j.is_discarded() && j.is_object(), prefix() + "'" + text + "' is not a JSON object");
  if (j.empty()) return c;
  std::string ipOrPort;  // kv_ip or kv_port when given: only TcpConnector takes them
  for (const auto& [key, value] : j.items()) {
    if (key == "kv_connector") {
      c.kvConnector = stringField(value, key);
      check(c.kvConnector == "PdInProcessConnector" || c.kvConnector == "TcpConnector",
            prefix() + "kv_connector \"" + c.kvConnector + "\"; expected " + kConnectors);
    } else if (key == "kv_role") {
      c.kvRole = stringField(value, key);
      check(c.kvRole == "kv_producer" || c.kvRole == "kv_consumer" || c.kvRole == "kv_both",
            prefix() + "kv_role \"" + c.kvRole + "\"; expected kv_producer, kv_consumer or kv_both");
    } else if (key == "kv_ip") {
      c.kvIp = stringField(value, key);
      ipOrPort = key;
    } else if (key == "kv_port") {
      c.kvPort = portField(value);
      ipOrPort = key;
    } else if (key == "kv_connector_extra_config") {
      check(value.is_object(), prefix() + "kv_connector_extra_config is " + value.dump() + "; expected an object");
      for (const auto& [k, v] : value.items()) {
        check(k == "link", prefix() + "kv_connector_extra_config: unknown key \"" + k + "\"; expected link");
        c.link = kvLinkPreset(stringField(v, "kv_connector_extra_config.link")).name;
      }
    } else {
      throw Error(prefix() + "unknown key \"" + key +
                  "\"; expected kv_connector, kv_role, kv_ip, kv_port, kv_connector_extra_config");
    }
  }
  checkConsistent(c, !ipOrPort.empty(), ipOrPort);
  return c;
}

}  // namespace lwb
