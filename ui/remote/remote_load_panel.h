#pragma once
// The remote window's Load generator dock: the local one's workload form (WorkloadForm),
// max_concurrency and the tokenizer the prompts are built with, Start / Stop and
// progress. It only asks RemoteLoad to start or stop; the run is on RemoteLoad's threads.
#include <QWidget>

class QLabel;
class QLineEdit;
class QProgressBar;
class QSpinBox;

namespace lwb::remote {
struct RemoteBenchRun;
}

namespace lwb::ui {

class RemoteLoad;
class WorkloadForm;

class RemoteLoadPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RemoteLoadPanel(RemoteLoad* load, QWidget* parent = nullptr);
  WorkloadForm* form() const { return form_; }
  QSpinBox* maxConcurrency() const { return maxConcurrency_; }
  bool start();  // false with the reason in statusText()
  QString statusText() const;

 private:
  void onProgress(int numSent, int numFinished, int numPlanned);
  void onRunningChanged(bool running);
  static QString missText(const remote::RemoteBenchRun& run);

  RemoteLoad* load_;
  WorkloadForm* form_;
  QSpinBox* maxConcurrency_;
  QLineEdit* tokenizer_;
  QProgressBar* progress_;
  QLabel* status_;
};

}  // namespace lwb::ui
