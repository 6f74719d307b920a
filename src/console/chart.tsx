// A small time-series chart (uPlot): x in seconds since the epoch, one or more y series.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

const COLORS = ['#1f6feb', '#b35900', '#0a7f3f', '#8250df', '#cf222e'];

export function Chart({ title, labels, data, height = 180 }: { title: string; labels: string[]; data: [number[], ...(number | null)[][]]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot>();
  const key = labels.join('|');
  useEffect(() => {
    const el = box.current!;
    const opts: uPlot.Options = {
      title,
      width: Math.max(280, el.clientWidth),
      height,
      series: [{}, ...labels.map((label, i) => ({ label, stroke: COLORS[i % COLORS.length], width: 2, points: { show: data[0].length < 60 } }))],
      axes: [{}, { size: 60 }],
    };
    plot.current = new uPlot(opts, data as uPlot.AlignedData, el);
    const resize = () => plot.current?.setSize({ width: Math.max(280, el.clientWidth), height });
    addEventListener('resize', resize);
    return () => {
      removeEventListener('resize', resize);
      plot.current?.destroy();
      plot.current = undefined;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, title, height]);
  useEffect(() => {
    plot.current?.setData(data as uPlot.AlignedData);
  }, [data]);
  return <div class="chart" ref={box} role="img" aria-label={`${title}: chart`} />;
}
