// ChatConversation: the transcript and the prompt-as-tokens view as HTML, and the
// marking of answer text that came from accepted speculative drafts.
#include <QAction>
#include <QMenu>
#include <QScrollBar>
#include <QTextBrowser>
#include <QToolButton>

#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/panels/chat_conversation.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {
QString escapeText(const QString& s) { return s.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")); }
}  // namespace

// Right-click on the transcript: the browser's own actions plus the draft marking toggle.
void ChatConversation::setupTranscriptMenu() {
  markDraftsAction_ = new QAction(tr("Mark tokens from accepted drafts"), this);
  markDraftsAction_->setCheckable(true);
  markDraftsAction_->setChecked(markDrafts_);
  markDraftsAction_->setToolTip(tr("Tint answer text that came from speculative drafts the model accepted"));
  connect(markDraftsAction_, &QAction::toggled, this, &ChatConversation::setMarkDrafts);
  transcript_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(transcript_, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    QMenu* menu = transcript_->createStandardContextMenu(pos);
    menu->addSeparator();
    menu->addAction(markDraftsAction_);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(transcript_->viewport()->mapToGlobal(pos));
  });
  transcript_->setToolTip(tr("With speculative decoding on (speculative_config), tinted text came from draft "
                             "tokens the model accepted. Right-click to turn the marking on or off."));
}

void ChatConversation::setMarkDrafts(bool on) {
  if (on == markDrafts_) return;
  markDrafts_ = on;
  if (markDraftsAction_->isChecked() != on) markDraftsAction_->setChecked(on);
  render();
  emit changed();
}

QString ChatConversation::draftLegend(size_t turn) const {
  return tr("<p style='color:%1; font-size:9pt'><span style='background-color:%2'>&nbsp;tinted&nbsp;</span> "
            "%3 of %4 tokens came from accepted speculative drafts</p>")
      .arg(theme::htmlColor(theme::kMutedText), theme::htmlColor(DraftMarks::tint()))
      .arg(marks_.numDraftTokens(turn))
      .arg(marks_.numTokens(turn));
}

void ChatConversation::render() {
  QString html = QStringLiteral("<html><body style='font-size:10.5pt'>");
  if (session_.empty())
    html += tr("<p style='color:%1'>Ask the model something. Each answer shows its TTFT, inter-token latency, "
               "speed and how many prompt tokens the prefix cache saved.</p>")
                .arg(theme::htmlColor(theme::kMutedText));
  for (size_t i = 0; i < session_.turns().size(); ++i) {
    const ChatTurn& m = session_.turns()[i];
    const QString content = QString::fromStdString(m.content);
    if (m.role == ChatTurn::Role::Notice) {
      html += QStringLiteral("<p style='color:%1'><i>%2</i></p>").arg(theme::htmlColor(theme::kMarker), escapeText(content));
      continue;
    }
    const bool user = m.role == ChatTurn::Role::User;
    const QColor c = user ? theme::kAccent : theme::kRunning;
    const DraftMarks::Ranges none;
    const QString text = DraftMarks::html(m.content, markDrafts_ ? marks_.ranges(i) : none, DraftMarks::tint());
    html += QStringLiteral("<p><b style='color:%1'>%2</b><br>%3")
                .arg(theme::htmlColor(c), user ? tr("You") : tr("Assistant"), text);
    if (!user && m.stats.empty() && busy() && &m == &session_.turns().back())
      html += QStringLiteral("<span style='color:%1'> ▍</span>").arg(theme::htmlColor(theme::kDecode));
    html += QStringLiteral("</p>");
    if (!m.stats.empty())
      html += QStringLiteral("<p style='color:%1; font-size:9pt'>%2</p>")
                  .arg(theme::htmlColor(theme::kMutedText), QString::fromStdString(m.stats).toHtmlEscaped());
    if (markDrafts_ && marks_.numDraftTokens(i) > 0) html += draftLegend(i);
  }
  html += QStringLiteral("</body></html>");
  transcript_->setHtml(html);
  transcript_->verticalScrollBar()->setValue(transcript_->verticalScrollBar()->maximum());
}

void ChatConversation::setShowTokens(bool show) {
  tokens_->setVisible(show);
  tokensButton_->setArrowType(show ? Qt::DownArrow : Qt::RightArrow);
  if (tokensButton_->isChecked() != show) tokensButton_->setChecked(show);
  renderTokens();
}

bool ChatConversation::showsTokens() const { return !tokens_->isHidden(); }

void ChatConversation::renderTokens() {
  if (tokens_->isHidden()) return;  // isHidden, not isVisible: right even before the window shows
  const Model* model = bridge_->model();
  if (!model || !model->tokenizer || lastPrompt_.empty()) {  // a simulated model may have no tokenizer
    tokens_->setHtml(tr("<i>Send a message to see its prompt as tokens.</i>"));
    return;
  }
  QString html = tr("<p style='color:%1'>%2 tokens, %3 tokenizer, chat template: %4</p><p style='line-height:160%'>")
                     .arg(theme::htmlColor(theme::kMutedText))
                     .arg(lastPrompt_.size())
                     .arg(QString::fromStdString(tokenizerKindName(model->tokenizer->kind())))
                     .arg(QString::fromStdString(model->chatTemplate.familyName()));
  for (int id : lastPrompt_) {
    // Byte-level pieces are shown as text ("Ġthe" → "␣the"), bytes as <0xNN>.
    const QString piece = QString::fromStdString(readablePiece(*model->tokenizer, id)).toHtmlEscaped();
    html += QStringLiteral("<span style='background:%1;color:#101214'>&nbsp;%2<sub>%3</sub>&nbsp;</span> ")
                .arg(theme::htmlColor(theme::tokenColor(id)), piece)
                .arg(id);
  }
  tokens_->setHtml(html + QStringLiteral("</p>"));
}

}  // namespace lwb::ui
