#include "ui/language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QPointer>
#include <QSettings>
#include <QTranslator>
#include <string>

#include "engine/common/error.h"

namespace lwb::ui {

namespace {
const QString kSettingsKey = QStringLiteral("ui/language");
QString installed = QStringLiteral("en");
QList<QPointer<QTranslator>> installedTranslators;
}  // namespace

QStringList languageChoices() { return {QStringLiteral("system"), QStringLiteral("en"), QStringLiteral("ja")}; }

QString savedLanguage() {
  const QString v = QSettings().value(kSettingsKey, QStringLiteral("system")).toString();
  return languageChoices().contains(v) ? v : QStringLiteral("system");
}

void saveLanguage(const QString& choice) { QSettings().setValue(kSettingsKey, choice); }

QString resolveLanguage(const QString& choice) {
  if (choice == QLatin1String("en") || choice == QLatin1String("ja")) return choice;
  check(choice == QLatin1String("system"),
        "language: expected one of system, en, ja, found '" + choice.toStdString() + "'");
  return QLocale::system().language() == QLocale::Japanese ? QStringLiteral("ja") : QStringLiteral("en");
}

QTranslator* loadWindowTranslator(const QString& lang, QObject* parent) {
  auto* t = new QTranslator(parent);
  if (t->load(QStringLiteral(":/i18n/llm-workbench_%1.qm").arg(lang))) return t;
  delete t;
  return nullptr;
}

bool installLanguage(const QString& lang) {
  for (const auto& t : installedTranslators)
    if (t) {
      QCoreApplication::removeTranslator(t);
      delete t;
    }
  installedTranslators.clear();
  installed = QStringLiteral("en");
  if (lang == QLatin1String("en")) return true;
  QTranslator* window = loadWindowTranslator(lang, QCoreApplication::instance());
  if (!window) return false;
  // Qt's own strings (standard buttons, file dialogs) when qt6-translations-l10n is installed.
  auto* qt = new QTranslator(QCoreApplication::instance());
  if (qt->load(QStringLiteral("qtbase_") + lang, QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
    QCoreApplication::installTranslator(qt);
    installedTranslators << qt;
  } else {
    delete qt;
  }
  QCoreApplication::installTranslator(window);  // installed last: looked up first
  installedTranslators << window;
  installed = lang;
  return true;
}

QString currentLanguage() { return installed; }

QString translated(const char* context, std::string_view text) {
  const std::string s(text);  // NUL-terminated for translate()
  return QCoreApplication::translate(context, s.c_str());
}

}  // namespace lwb::ui
