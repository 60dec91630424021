#include "ui/bridge/run_export.h"

#include <QFile>
#include <QSaveFile>
#include <QTextStream>

namespace lwb::ui {

namespace {
QString writeAtomically(const QString& path, const QByteArray& bytes) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
  f.write(bytes);
  if (!f.commit()) return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
  return {};
}
QString ms(const std::optional<double>& s) { return s ? QString::number(*s * 1000.0, 'f', 3) : QString(); }
}  // namespace

QString saveRunJson(const RunData& run, const QString& path) {
  return writeAtomically(path, QByteArray::fromStdString(runToJson(run).dump(1)));
}

QString openRunJson(const QString& path, RunData* run) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return QObject::tr("Cannot open %1: %2").arg(path, f.errorString());
  try {
    *run = runFromJson(nlohmann::json::parse(f.readAll().toStdString()));
  } catch (const std::exception& e) {
    return QObject::tr("%1: %2").arg(path, QString::fromUtf8(e.what()));
  }
  return {};
}

QString exportRequestsCsv(const RunData& run, const QString& path) {
  QByteArray out;
  QTextStream s(&out);
  s << "request_id,tag,priority,num_prompt_tokens,num_cached_prompt_tokens,num_output_tokens,num_preemptions,"
       "arrival_time_s,queue_time_ms,time_to_first_token_ms,mean_inter_token_latency_ms,time_per_output_token_ms,"
       "e2e_request_latency_ms,finish_reason\n";
  for (const auto& t : run.requests) {
    const auto gaps = t.itls();
    double mean = 0;
    for (double g : gaps) mean += g;
    auto tag = run.tags.find(t.id);
    s << t.id << ',' << (tag == run.tags.end() ? QString() : QString::fromStdString(tag->second)) << ','
      << t.priority << ',' << t.numPromptTokens << ',' << t.numCachedPromptTokens << ',' << t.numOutputTokens << ','
      << t.numPreemptions << ',' << QString::number(t.arrivalTime, 'f', 6) << ',' << ms(t.queueTime()) << ','
      << ms(t.ttft()) << ',' << (gaps.empty() ? QString() : QString::number(mean / double(gaps.size()) * 1000.0, 'f', 3))
      << ',' << ms(t.tpot()) << ',' << ms(t.e2e()) << ',' << QString::fromStdString(finishReasonName(t.finishReason))
      << '\n';
  }
  s.flush();
  return writeAtomically(path, out);
}

QString exportChromeTrace(const RunData& run, const QString& path) {
  using nlohmann::json;
  json events = json::array();
  auto span = [&events](const char* name, RequestId id, double from, double to) {
    if (to <= from) return;
    events.push_back({{"name", name}, {"ph", "X"}, {"pid", 1}, {"tid", id}, {"ts", from * 1e6}, {"dur", (to - from) * 1e6}});
  };
  for (const auto& t : run.requests) {
    const double end = t.finishTime.value_or(t.tokenTimes.empty() ? t.arrivalTime : t.tokenTimes.back());
    const double sched = t.firstScheduledTime.value_or(end);
    const double first = t.firstTokenTime.value_or(end);
    span("queued", t.id, t.arrivalTime, sched);
    span("prefill", t.id, sched, first);
    span("decode", t.id, first, end);
  }
  for (const auto& s : run.steps) {
    events.push_back({{"name", "step"}, {"ph", "X"}, {"pid", 0}, {"tid", 0}, {"ts", s.startTime * 1e6},
                      {"dur", s.duration * 1e6},
                      {"args", {{"prefill_tokens", s.numPrefillTokens}, {"decode_tokens", s.numDecodeTokens}}}});
    events.push_back({{"name", "batch"}, {"ph", "C"}, {"pid", 0}, {"ts", s.startTime * 1e6},
                      {"args", {{"prefill", s.numPrefillTokens}, {"decode", s.numDecodeTokens}}}});
  }
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", "engine steps"}}}});
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "requests"}}}});
  return writeAtomically(path, QByteArray::fromStdString(json{{"traceEvents", events}}.dump()));
}

}  // namespace lwb::ui
