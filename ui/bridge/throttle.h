#pragma once
// Runs a view refresh at most once per interval, and once more at the end of a burst so
// the last state always shows (a paused engine sends no further frame). Text that people
// read (captions, status, table rows) needs a few updates a second, not one per frame,
// and each update of a wrapped label or a table repaint costs the GUI thread layout and
// text shaping on the cores the engine also uses.
#include <QElapsedTimer>
#include <QTimer>
#include <functional>

namespace lwb::ui {

class Throttle {
 public:
  Throttle(int intervalMs, std::function<void()> refresh) : intervalMs_(intervalMs), refresh_(std::move(refresh)) {
    trailing_.setSingleShot(true);
    QObject::connect(&trailing_, &QTimer::timeout, [this] { run(); });
  }

  // Refreshes now when the interval has passed, else schedules it for when it has.
  void request() {
    if (!last_.isValid() || last_.elapsed() >= intervalMs_) run();
    else if (!trailing_.isActive()) trailing_.start(int(intervalMs_ - last_.elapsed()));
  }

 private:
  void run() {
    trailing_.stop();
    last_.start();
    refresh_();
  }

  const int intervalMs_;
  std::function<void()> refresh_;
  QElapsedTimer last_;
  QTimer trailing_;
};

}  // namespace lwb::ui
