// The window's prefill/decode pair: starting one (Engine ▸ Prefill/decode
// disaggregation…, or --pd), the P/D dock, and the comparison with the colocated design.
#include <QDockWidget>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QStatusBar>

#include "engine/common/error.h"
#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/bridge/pd_compare.h"
#include "ui/main_window.h"
#include "ui/panels/load_panel.h"
#include "ui/panels/pd_panel.h"
#include "ui/panels/runs_panel.h"

namespace lwb::ui {

bool MainWindow::disaggregated() const {
  const auto s = bridge_->lastSnapshot();
  return bridge_->attached() && s && s->disaggregated;
}

QString MainWindow::pdSplitError(int prefill, int decode, const std::string& backend) {
  const bool sim = backend == "sim";
  if (prefill < 0 || decode < 0 || (prefill == 0) != (decode == 0))
    return sim ? tr("P:D %1:%2: expected two positive counts of simulated GPUs, e.g. 2:2").arg(prefill).arg(decode)
               : tr("P:D %1:%2: expected two positive thread counts, e.g. 1:1").arg(prefill).arg(decode);
  if (sim && (prefill > kMaxSimPdInstances || decode > kMaxSimPdInstances))
    return tr("P:D %1:%2: the window shows at most %3 simulated prefill and %3 decode instances; "
              "bench --pd N:M runs more")
        .arg(prefill)
        .arg(decode)
        .arg(kMaxSimPdInstances);
  return {};
}

bool MainWindow::startPd(int prefill, int decode) {
  if (!bridge_->attached() || !bridge_->model()) {
    lastError_ = tr("No model is loaded yet.");
    return false;
  }
  lastError_ = pdSplitError(prefill, decode, bridge_->config().executor.backend);
  if (!lastError_.isEmpty()) return false;
  pdSplit_[0] = prefill;
  pdSplit_[1] = decode;
  loadEngine(QString::fromStdString(bridge_->model()->dir), bridge_->config());
  return true;
}

void MainWindow::showPdDialog() {
  const bool sim = simulated();
  bool ok = false;
  const QString current = disaggregated() ? QStringLiteral("%1:%2").arg(pdSplit_[0]).arg(pdSplit_[1])
                                          : QStringLiteral("1:1");
  const QString text = QInputDialog::getText(
      this, tr("Prefill/decode disaggregation"),
      sim ? tr("P:D — prefill and decode instances of the simulated GPU (each 1 to %1), or 0:0 for one "
               "colocated engine:")
                .arg(kMaxSimPdInstances)
          : tr("P:D — threads of the prefill and the decode instance, or 0:0 for one colocated engine:"),
      QLineEdit::Normal, current, &ok);
  if (!ok) return;
  const QStringList parts = text.trimmed().split(QLatin1Char(':'));
  bool okP = false, okD = false;
  const int p = parts.size() == 2 ? parts[0].toInt(&okP) : -1;
  const int d = parts.size() == 2 ? parts[1].toInt(&okD) : -1;
  if (!okP || !okD) {
    showError(tr("Prefill/decode disaggregation"), tr("\"%1\": expected P:D, e.g. 1:1").arg(text));
    return;
  }
  if (!startPd(p, d)) showError(tr("Prefill/decode disaggregation"), lastError_);
}

// The P/D dock comes forward when a pair attaches; chat stays on (the decode instance
// streams the answer) except where the engine is simulated.
void MainWindow::onPdAttached() {
  const bool pair = disaggregated();
  pd_->setPairAttached(pair, bridge_->lastSnapshot());
  if (pair)
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("dock.pd"))) dock->raise();
}

void MainWindow::setUpPd() {
  connect(pd_, &PdPanel::compareRequested, this, &MainWindow::compareWithColocated);
  connect(pdCompare_, &PdCompare::finished, this, [this](const PdComparison& r) {
    runs_->setRun(0, r.disaggregated, r.disaggregatedName);
    runs_->setRun(1, r.colocated, r.colocatedName);
    pd_->status()->setText(tr("Done: A = %1, B = %2 in Runs: compare.").arg(r.disaggregatedName, r.colocatedName));
    pd_->compareButton()->setEnabled(disaggregated());
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("dock.runs"))) dock->raise();
  });
  connect(pdCompare_, &PdCompare::failed, this, [this](const QString& message) {
    pd_->status()->setText(tr("The comparison failed: %1").arg(message));
    pd_->compareButton()->setEnabled(disaggregated());
  });
}

bool MainWindow::compareWithColocated() {
  const auto loop = bridge_->sharedLoop();
  const std::optional<PdConfig> pd = loop ? loop->pdConfig() : std::nullopt;
  if (!pd || !pdCompare_->start(bridge_->sharedModel(), *pd, load_->options())) return false;
  pd_->compareButton()->setEnabled(false);
  pd_->status()->setText(tr("Running the load generator's workload (at most %1 requests) on the pair, then on "
                            "the colocated design…")
                             .arg(PdCompare::kMaxPrompts));
  return true;
}

}  // namespace lwb::ui
