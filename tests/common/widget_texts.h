#pragma once
// What a widget tree shows, for the translation test (tst_ui_translation): every text a
// user can see or hover (labels, buttons, tabs, tooltips, combo items, spin box texts,
// table headers, chart axes, legends and texts, menus and actions), whether a text reads
// as Japanese or holds English words, and whether a one-line text fits its widget.
#include <QAbstractItemView>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QSet>
#include <QSpinBox>
#include <QStyleOptionButton>
#include <QTabBar>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QTextEdit>
#include <cmath>
#include <qcustomplot.h>

namespace lwb::test {

struct Shown {
  QString text;
  QString where;  // the widget's class and object name, for the failure message
};

inline QString plain(const QString& s) {
  QString t = Qt::mightBeRichText(s) ? QTextDocumentFragment::fromHtml(s).toPlainText() : s;
  return t.remove(QRegularExpression(QStringLiteral("&(?=\\S)")));  // mnemonics
}

inline QString where(const QObject* o) {
  QString s = QString::fromLatin1(o->metaObject()->className());
  for (const QObject* p = o; p; p = p->parent())
    if (!p->objectName().isEmpty()) return s + QStringLiteral(" in ") + p->objectName();
  return s;
}

inline void addText(QList<Shown>& out, const QString& text, const QObject* o) {
  if (!text.trimmed().isEmpty()) out.push_back({plain(text), where(o)});
}

inline void collectMenu(const QMenu* menu, QList<Shown>& out) {
  for (QAction* a : menu->actions()) {
    addText(out, a->text(), menu);
    if (a->toolTip() != plain(a->text())) addText(out, a->toolTip(), menu);
    if (a->menu()) collectMenu(a->menu(), out);
  }
}

inline void collectPlot(QCustomPlot* plot, QList<Shown>& out) {
  for (QCPAxisRect* rect : plot->axisRects())
    for (QCPAxis* axis : rect->axes()) addText(out, axis->label(), plot);
  for (int i = 0; i < plot->plottableCount(); ++i) addText(out, plot->plottable(i)->name(), plot);
  for (int i = 0; i < plot->itemCount(); ++i)
    if (auto* t = qobject_cast<QCPItemText*>(plot->item(i)); t && t->visible()) addText(out, t->text(), plot);
  for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
    if (auto* t = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i))) addText(out, t->text(), plot);
}

// Every text a widget shows or explains itself with.
inline void collectWidget(const QWidget* w, QList<Shown>& out) {
  addText(out, w->toolTip(), w);
  if (auto* l = qobject_cast<const QLabel*>(w)) addText(out, l->text(), w);
  if (auto* b = qobject_cast<const QAbstractButton*>(w)) addText(out, b->text(), w);
  if (auto* g = qobject_cast<const QGroupBox*>(w)) addText(out, g->title(), w);
  if (auto* d = qobject_cast<const QDockWidget*>(w)) addText(out, d->windowTitle(), w);
  if (auto* e = qobject_cast<const QLineEdit*>(w)) addText(out, e->placeholderText(), w);
  if (auto* e = qobject_cast<const QPlainTextEdit*>(w)) addText(out, e->placeholderText(), w);
  if (auto* e = qobject_cast<const QTextEdit*>(w)) addText(out, e->placeholderText(), w);
  if (auto* t = qobject_cast<const QTabBar*>(w))
    for (int i = 0; i < t->count(); ++i) {
      addText(out, t->tabText(i), w);
      addText(out, t->tabToolTip(i), w);
    }
  if (auto* c = qobject_cast<const QComboBox*>(w))
    for (int i = 0; i < c->count(); ++i) {
      addText(out, c->itemText(i), w);
      addText(out, c->itemData(i, Qt::ToolTipRole).toString(), w);
    }
  if (auto* s = qobject_cast<const QSpinBox*>(w)) {
    addText(out, s->specialValueText(), w);
    addText(out, s->prefix() + s->suffix(), w);
  }
  if (auto* s = qobject_cast<const QDoubleSpinBox*>(w)) {
    addText(out, s->specialValueText(), w);
    addText(out, s->prefix() + s->suffix(), w);
  }
  if (auto* v = qobject_cast<const QAbstractItemView*>(w); v && v->model())
    for (int c = 0; c < v->model()->columnCount(); ++c) {
      addText(out, v->model()->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString(), w);
      addText(out, v->model()->headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString(), w);
    }
  if (auto* m = qobject_cast<const QMenu*>(w)) collectMenu(m, out);
  if (auto* p = qobject_cast<QCustomPlot*>(const_cast<QWidget*>(w))) collectPlot(p, out);
}

inline QList<Shown> collectAll(QWidget* root) {
  QList<Shown> out;
  addText(out, root->windowTitle(), root);
  collectWidget(root, out);
  for (const QWidget* w : root->findChildren<QWidget*>()) collectWidget(w, out);
  for (const QAction* a : root->findChildren<QAction*>()) {
    addText(out, a->text(), a);
    if (a->toolTip() != plain(a->text())) addText(out, a->toolTip(), a);
  }
  return out;
}

inline bool readsJapanese(const QString& s) {
  for (QChar c : s)
    if (c.script() == QChar::Script_Hiragana || c.script() == QChar::Script_Katakana || c.script() == QChar::Script_Han)
      return true;
  return false;
}

inline QStringList untranslatedWords(const QString& text, const QSet<QString>& allow) {
  QStringList words;
  static const QRegularExpression token(QStringLiteral("[A-Za-z0-9_.:/'\\-+]+"));
  for (auto it = token.globalMatch(text); it.hasNext();) {
    const QString t = it.next().captured().remove(QRegularExpression(QStringLiteral("^[-'.:/]+|[-'.:/]+$")));
    const bool identifier = t.contains(QRegularExpression(QStringLiteral("[0-9_.:/+]")));
    if (t.size() < 2 || identifier || allow.contains(t)) continue;
    words << t;
  }
  return words;
}

// What the widget's text needs against the room it has: the contents rectangle, less a
// check box's indicator or a button's frame as the style draws them; "" when it fits.
inline QString fitProblem(const QWidget* w) {
  if (!w->isVisible() || w->width() <= 0) return {};
  const QFontMetrics fm(w->font());
  auto lineWidth = [&fm](const QString& text) {
    int widest = 0;
    for (const QString& line : text.split(QLatin1Char('\n'))) widest = std::max(widest, fm.horizontalAdvance(line));
    return widest;
  };
  int need = 0, room = 0;
  QString text;
  if (auto* l = qobject_cast<const QLabel*>(w)) {
    if (l->wordWrap() || l->text().isEmpty() || l->sizePolicy().horizontalPolicy() == QSizePolicy::Ignored) return {};
    text = l->text();
    if (Qt::mightBeRichText(text)) {
      QTextDocument doc;
      doc.setDefaultFont(l->font());
      doc.setDocumentMargin(0);
      doc.setHtml(text);
      need = int(std::ceil(doc.idealWidth()));
    } else {
      need = lineWidth(l->buddy() ? plain(text) : text);  // '&' marks a mnemonic only with a buddy
    }
    room = l->contentsRect().width() - 2 * l->margin() - std::max(0, l->indent());
  } else if (auto* b = qobject_cast<const QAbstractButton*>(w)) {
    text = plain(b->text());
    if (text.isEmpty()) return {};
    need = lineWidth(text);
    // The rectangle the style draws the text in.
    const QStyle* st = b->style();
    QStyleOptionButton opt;
    opt.initFrom(b);
    opt.text = b->text();
    opt.icon = b->icon();
    opt.iconSize = b->iconSize();
    room = b->width();
    if (auto* p = qobject_cast<const QPushButton*>(b)) {
      if (p->autoDefault() || p->isDefault()) opt.features |= QStyleOptionButton::AutoDefaultButton;
      room = st->subElementRect(QStyle::SE_PushButtonContents, &opt, b).width();
    } else if (qobject_cast<const QCheckBox*>(b)) {
      room = st->subElementRect(QStyle::SE_CheckBoxContents, &opt, b).width();
    } else if (qobject_cast<const QRadioButton*>(b)) {
      room = st->subElementRect(QStyle::SE_RadioButtonContents, &opt, b).width();
    }
    if (!b->icon().isNull()) room -= b->iconSize().width() + 4;
  } else if (auto* t = qobject_cast<const QTabBar*>(w)) {
    for (int i = 0; i < t->count(); ++i) {
      const int tabNeed = lineWidth(plain(t->tabText(i)));
      const int tabRoom = t->tabRect(i).width() - t->style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, t);
      if (t->isTabVisible(i) && tabNeed > tabRoom + 1)
        return QStringLiteral("tab '%1' needs %2 px, has %3").arg(t->tabText(i)).arg(tabNeed).arg(tabRoom);
    }
    return {};
  } else if (auto* h = qobject_cast<const QHeaderView*>(w); h && h->model()) {
    // A section's title is elided, not wrapped: it must fit the section's width.
    const int margin = 2 * h->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, h);
    const QFontMetrics hfm(h->font());
    for (int i = 0; i < h->count(); ++i) {
      const QString title = h->model()->headerData(i, h->orientation(), Qt::DisplayRole).toString();
      const int size = h->orientation() == Qt::Horizontal ? h->sectionSize(i) : h->width();
      // Stretched sections share what the view has left; the others were sized for their titles.
      if (h->isSectionHidden(i) || title.isEmpty() || h->sectionResizeMode(i) == QHeaderView::Stretch ||
          (h->stretchLastSection() && i == h->count() - 1))
        continue;
      if (hfm.horizontalAdvance(title) + margin > size + 1)
        return QStringLiteral("%1 header '%2' needs %3 px, has %4")
            .arg(where(w), title)
            .arg(hfm.horizontalAdvance(title) + margin)
            .arg(size);
    }
    return {};
  } else {
    return {};
  }
  if (need <= room + 1) return {};
  return QStringLiteral("%1 '%2' needs %3 px, has %4").arg(where(w), plain(text)).arg(need).arg(room);
}

inline QStringList fitProblems(QWidget* root) {
  QStringList out;
  for (QWidget* w : root->findChildren<QWidget*>())
    if (QString p = fitProblem(w); !p.isEmpty()) out << p;
  return out;
}

}  // namespace lwb::test
