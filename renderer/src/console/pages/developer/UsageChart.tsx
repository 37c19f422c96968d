/**
 * Bars per day of the month in SVG (no chart library), stacked: live legacy calls (the quota), test data (envelopes
 * of test keys, by any API), and the other live envelopes.
 */
import { useT } from '../../i18n';

export interface UsageDay {
  date: string;
  envelopes: number;
  calls: number;
  test_calls: number;
  test_envelopes: number;
}

const HEIGHT = 140;
const BAR = 14;
const GAP = 6;
/** Room for a whole month, so bars keep their size as the month goes on. */
const SLOTS = 31;

export function UsageChart({ days }: { days: UsageDay[] }) {
  const { t } = useT();
  const max = Math.max(1, ...days.map((d) => d.envelopes));
  const width = SLOTS * (BAR + GAP);
  const scale = (n: number) => (n / max) * (HEIGHT - 20);
  const total = days.reduce((sum, d) => sum + d.envelopes, 0);
  return (
    <figure className="usage-chart">
      <svg
        viewBox={`0 0 ${width} ${HEIGHT + 16}`}
        role="img"
        aria-label={t('developer.usage.chartLabel', { total })}
        preserveAspectRatio="xMinYMid meet"
      >
        {days.map((d, i) => {
          const x = i * (BAR + GAP);
          const live = scale(d.calls);
          const test = scale(d.test_envelopes);
          const other = scale(d.envelopes - d.calls - d.test_envelopes);
          const day = Number(d.date.slice(8));
          return (
            <g key={d.date}>
              <title>
                {t('developer.usage.dayTitle', {
                  date: d.date,
                  envelopes: d.envelopes,
                  calls: d.calls,
                  test: d.test_envelopes,
                })}
              </title>
              <rect className="bar-other" x={x} y={HEIGHT - other - test - live} width={BAR} height={other} />
              <rect className="bar-test" x={x} y={HEIGHT - test - live} width={BAR} height={test} />
              <rect className="bar-live" x={x} y={HEIGHT - live} width={BAR} height={live} />
              {(day === 1 || day % 5 === 0) && (
                <text x={x + BAR / 2} y={HEIGHT + 13} textAnchor="middle" className="axis">
                  {day}
                </text>
              )}
            </g>
          );
        })}
        <line x1={0} x2={width} y1={HEIGHT} y2={HEIGHT} className="axis-line" />
        <line x1={0} x2={width} y1={20} y2={20} className="axis-line max-line" />
        <text x={width} y={16} textAnchor="end" className="axis">
          {t('developer.usage.max', { max })}
        </text>
      </svg>
      <figcaption className="legend">
        <span>
          <i className="swatch bar-live" />
          {t('developer.usage.legendLive')}
        </span>
        <span>
          <i className="swatch bar-test" />
          {t('developer.usage.legendTest')}
        </span>
        <span>
          <i className="swatch bar-other" />
          {t('developer.usage.legendOther')}
        </span>
      </figcaption>
    </figure>
  );
}
