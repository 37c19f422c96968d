/** The console's language (shared with the signing page's saved choice) and its t(), through React context. */
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { browserLanguage, saveLanguage } from '../i18n/i18n';
import type { Language } from '../i18n/strings';
import { en, hi, type ConsoleStringKey } from './strings';

export type ConsoleTranslate = (key: ConsoleStringKey, params?: Record<string, string | number>) => string;

interface ConsoleI18n {
  language: Language;
  setLanguage(language: Language): void;
  t: ConsoleTranslate;
  /** Dates and numbers in the chosen language. */
  formatDate(iso: string | null | undefined): string;
}

const CATALOGUES: Record<Language, Record<ConsoleStringKey, string>> = { en, hi };

function translator(language: Language): ConsoleTranslate {
  const catalogue = CATALOGUES[language];
  return (key, params) =>
    catalogue[key].replace(/\{(\w+)\}/g, (whole, name: string) =>
      params && name in params ? String(params[name]) : whole,
    );
}

function dateFormatter(language: Language): (iso: string | null | undefined) => string {
  const format = new Intl.DateTimeFormat(language === 'hi' ? 'hi-IN' : 'en-IN', {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  return (iso) => (iso ? format.format(new Date(iso)) : '—');
}

const ConsoleI18nContext = createContext<ConsoleI18n>({
  language: 'en',
  setLanguage: () => undefined,
  t: translator('en'),
  formatDate: dateFormatter('en'),
});

export function ConsoleI18nProvider({ children }: { children: ReactNode }) {
  const [language, setLanguageState] = useState<Language>(browserLanguage);
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);
  const value = useMemo<ConsoleI18n>(
    () => ({
      language,
      t: translator(language),
      formatDate: dateFormatter(language),
      setLanguage(next) {
        setLanguageState(next);
        saveLanguage(next);
      },
    }),
    [language],
  );
  return <ConsoleI18nContext.Provider value={value}>{children}</ConsoleI18nContext.Provider>;
}

export function useT(): ConsoleI18n {
  return useContext(ConsoleI18nContext);
}
