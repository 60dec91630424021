#pragma once
// What the run views (requests table, latency, request timeline, runs) read, whoever
// produces the run: the in-process engine's EngineBridge, or the remote window's load
// generator with the client's view of a server's requests. One Frame per GUI tick and
// the run kept so far; each request's origin is its timeline's tag.
#include <QObject>
#include <QString>

#include "ui/bridge/frame.h"
#include "ui/bridge/run_data.h"

namespace lwb::ui {

class RunSource : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  virtual const RunData& run() const = 0;

 signals:
  void frameReady(const lwb::ui::Frame& frame);
  void runReset();  // another engine or server: the views start over
};

}  // namespace lwb::ui
