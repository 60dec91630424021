#include "ui/remote/remote_pair_window.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

namespace lwb::ui {

RemotePairWindow::RemotePairWindow(const RemoteOptions& prefill, const RemoteOptions& decode, QWidget* parent)
    : QMainWindow(parent) {
  setWindowTitle(tr("LLM Workbench — remote prefill/decode pair"));
  resize(1600, 900);
  auto* split = new QSplitter(Qt::Horizontal, this);
  const RemoteOptions* options[2] = {&prefill, &decode};
  const QString headings[2] = {tr("Prefill instance (kv_producer): %1"), tr("Decode instance (kv_consumer): %1")};
  for (int s = 0; s < 2; ++s) {
    auto* box = new QWidget(split);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(2, 2, 2, 2);
    titles_[s] = new QLabel(QStringLiteral("<b>%1</b>").arg(headings[s].arg(options[s]->url).toHtmlEscaped()), box);
    titles_[s]->setToolTip(tr("Each side is a remote window of its own: its own connection, status, knobs and "
                              "gauges. Requests go through the deployment's proxy; each side shows its server's "
                              "share of the work."));
    // A main window of its own (menus, docks, status bar), embedded as a plain widget.
    sides_[s] = new RemoteWindow(*options[s], box);
    sides_[s]->setWindowFlags(Qt::Widget);
    layout->addWidget(titles_[s]);
    layout->addWidget(sides_[s], 1);
    split->addWidget(box);
  }
  setCentralWidget(split);
}

QString RemotePairWindow::title(Side s) const { return titles_[s]->text(); }

}  // namespace lwb::ui
