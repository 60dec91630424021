#include "ui/remote/remote_load_panel.h"

#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

#include "remote/remote_bench.h"
#include "ui/panels/workload_form.h"
#include "ui/remote/remote_load.h"
#include "ui/theme.h"

namespace lwb::ui {

RemoteLoadPanel::RemoteLoadPanel(RemoteLoad* load, QWidget* parent)
    : QWidget(parent),
      load_(load),
      form_(new WorkloadForm(tr("Send nothing more and cancel the streams in flight"), this)) {
  maxConcurrency_ = new QSpinBox(this);
  maxConcurrency_->setRange(0, 100000);
  maxConcurrency_->setSpecialValueText(tr("default (min(num_prompts, %1))").arg(remote::kMaxStreams));
  maxConcurrency_->setToolTip(tr("max_concurrency: streams open at once; a request waits for a free one"));
  tokenizer_ = new QLineEdit(this);
  tokenizer_->setPlaceholderText(tr("bundled model's"));
  tokenizer_->setToolTip(tr("tokenizer: a folder with the served model's tokenizer.json or tokenizer.model. "
                            "Prompts are sent as token ids, so lengths are exact in the server's tokens."));
  for (auto [name, field] : {std::pair{"max_concurrency", static_cast<QWidget*>(maxConcurrency_)},
                             std::pair{"tokenizer", static_cast<QWidget*>(tokenizer_)}}) {
    auto* label = new QLabel(QString::fromLatin1(name), this);
    label->setToolTip(field->toolTip());
    label->setStyleSheet(QStringLiteral("font-family: monospace;"));
    form_->layout()->addRow(label, field);
  }
  progress_ = new QProgressBar(this);
  progress_->setFormat(tr("%v / %m finished"));
  progress_->setValue(0);
  status_ = new QLabel(tr("Synthetic requests, as `llm-workbench bench --endpoint` sends them, timed by this client."),
                       this);
  status_->setWordWrap(true);
  status_->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kMutedText)));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(form_);
  layout->addWidget(progress_);
  layout->addWidget(status_);
  layout->addStretch();
  connect(form_, &WorkloadForm::startClicked, this, &RemoteLoadPanel::start);
  connect(form_, &WorkloadForm::stopClicked, load_, &RemoteLoad::stop);
  connect(form_, &WorkloadForm::stopClicked, this, [this] { status_->setText(tr("Stopping…")); });
  connect(load_, &RemoteLoad::progressed, this, &RemoteLoadPanel::onProgress);
  connect(load_, &RemoteLoad::runningChanged, this, &RemoteLoadPanel::onRunningChanged);
}

bool RemoteLoadPanel::start() {
  RemoteLoadOptions o;
  o.workload = form_->options();
  o.maxConcurrency = maxConcurrency_->value();
  o.tokenizerDir = tokenizer_->text().trimmed();
  if (!load_->start(o)) {
    status_->setText(load_->error());
    return false;
  }
  status_->setText(tr("Running against %1…").arg(load_->model()));
  return true;
}

QString RemoteLoadPanel::statusText() const { return status_->text(); }

void RemoteLoadPanel::onProgress(int numSent, int numFinished, int numPlanned) {
  progress_->setMaximum(std::max(1, numPlanned));
  progress_->setValue(numFinished);
  progress_->setFormat(load_->running() ? tr("%1 sent · %v / %m finished").arg(numSent) : tr("%v / %m finished"));
}

void RemoteLoadPanel::onRunningChanged(bool running) {
  form_->setRunning(running);
  if (running) return;
  if (!load_->error().isEmpty()) status_->setText(tr("Failed: %1").arg(load_->error()));
  else if (load_->lastRun())
    status_->setText(tr("Done: %1 of %n request(s) completed.", "", load_->lastRun()->report.numRequests)
                         .arg(load_->lastRun()->report.completed) +
                     missText(*load_->lastRun()));
}

// What the Requests table's "why missed" column rests on in a remote run.
QString RemoteLoadPanel::missText(const remote::RemoteBenchRun& run) {
  if (!run.prefixMissExplained)
    return tr(" Why prompt tokens missed the prefix cache: not known (no KV-event address given).");
  QString text = tr(" Why prompt tokens missed: reconstructed from the server's KV events and its cached_tokens; "
                    "caching_off and who evicted a block cannot be known from outside.");
  if (run.prefixHeldWhenSentTokens > 0)
    text += tr(" %1 missed tokens were in blocks the events showed cached when sent (removed before the "
               "server's lookup, or hashed differently: cache_salt, LoRA).")
                .arg(run.prefixHeldWhenSentTokens);
  if (run.numPrefixUnexplained > 0)
    text += tr(" %n request(s) not explained (no usage cached_tokens, or no block stored yet when sent).", "",
                 run.numPrefixUnexplained);
  return text;
}

}  // namespace lwb::ui
