/** /developer/usage: this month's calls against the quota, the per-minute limit, and use per day. */
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useResource } from '../../use-resource';
import { DeveloperFrame } from './DeveloperFrame';
import { legacy, type UsageSummary } from './model';
import { UsageChart, type UsageDay } from './UsageChart';

export function UsagePage(_props: { params: Record<string, string> }) {
  const { t, formatDate, language } = useT();
  const summary = useResource((signal) => api<UsageSummary>('GET', legacy('/usage/summary/'), { signal }), []);
  const daily = useResource(
    (signal) => api<{ period: string; days: UsageDay[] }>('GET', legacy('/usage/daily/'), { signal }),
    [],
  );
  const number = (n: number) => n.toLocaleString(language === 'hi' ? 'hi-IN' : 'en-IN');
  const s = summary.data;
  return (
    <DeveloperFrame area="developer" title="developer.usage.title" intro="developer.usage.intro">
      <ErrorNotice error={summary.error} onRetry={summary.reload} />
      {summary.loading && !s && <p role="status">{t('console.loading')}</p>}
      {s && (
        <div className="usage-cards">
          <section className="card" aria-labelledby="usage-month">
            <h2 id="usage-month">{t('developer.usage.month', { period: s.period })}</h2>
            <p className="big-number" data-testid="calls-used">
              {s.monthly_call_limit === null
                ? t('developer.usage.usedUnlimited', { used: number(s.calls_used) })
                : t('developer.usage.usedOf', { used: number(s.calls_used), limit: number(s.monthly_call_limit) })}
            </p>
            {s.monthly_call_limit !== null && (
              <progress
                className="progress"
                max={Math.max(1, s.monthly_call_limit)}
                value={Math.min(s.calls_used, s.monthly_call_limit)}
                aria-label={t('developer.usage.quota')}
              />
            )}
            <p className="muted">
              {s.calls_remaining === null
                ? t('developer.usage.noQuota')
                : t('developer.usage.remaining', {
                    remaining: number(s.calls_remaining),
                    reset: formatDate(s.period_end),
                  })}
            </p>
            <p className="muted">{t('developer.usage.testCalls', { count: number(s.test_calls) })}</p>
          </section>
          <section className="card" aria-labelledby="usage-rate">
            <h2 id="usage-rate">{t('developer.usage.rate')}</h2>
            <p className="big-number">
              {s.rate_limit.requests_per_minute === null
                ? t('developer.usage.noRate')
                : t('developer.usage.perMinute', { count: number(s.rate_limit.requests_per_minute) })}
            </p>
            <p className="muted">{t('developer.usage.rateHint')}</p>
          </section>
        </div>
      )}
      <section className="card" aria-labelledby="usage-daily">
        <h2 id="usage-daily">{t('developer.usage.daily')}</h2>
        <ErrorNotice error={daily.error} onRetry={daily.reload} />
        {daily.data &&
          (daily.data.days.some((d) => d.envelopes > 0) ? (
            <UsageChart days={daily.data.days} />
          ) : (
            <p className="notice">{t('developer.usage.dailyEmpty')}</p>
          ))}
      </section>
    </DeveloperFrame>
  );
}
