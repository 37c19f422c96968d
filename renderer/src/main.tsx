/** Entry of the hosted signing page (/sign/{token}). */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './components/App';
import { I18nProvider } from './i18n/i18n';
import { tokenFromLocation } from './page-context';
import { pdfModule } from './pdf/pdf-module';
import './styles.css';

if (tokenFromLocation()) void pdfModule();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <I18nProvider>
      <App />
    </I18nProvider>
  </StrictMode>,
);
