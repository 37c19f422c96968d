/** Entry of the public verifier (/verify): no login, no signing link. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nProvider } from '../i18n/i18n';
import { VerifyPage } from './VerifyPage';
import '../styles.css';
import './verify.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <I18nProvider>
      <VerifyPage />
    </I18nProvider>
  </StrictMode>,
);
