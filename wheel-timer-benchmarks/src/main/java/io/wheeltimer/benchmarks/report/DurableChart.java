package io.wheeltimer.benchmarks.report;

import io.wheeltimer.benchmarks.experiments.DurableContender;
import io.wheeltimer.benchmarks.experiments.DurableDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The chart of the durable section ({@link DurableReport#CHART}): lateness p50 and p99 per scheduler,
 * horizontal bars on a logarithmic axis (ms), on PostgreSQL, then on MariaDB if it was measured.
 */
final class DurableChart {

    private static final DurableContender[] ALL = DurableContender.values();

    private DurableChart() {}

    /** Writes the chart into {@code docs} as {@link DurableReport#CHART}. */
    static void write(DurableResults results, Path docs) throws IOException {
        List<DurableResults> views = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        List<DurableContender> contenders = new ArrayList<>();
        boolean both = results.has(DurableDatabase.MARIADB);
        for (DurableDatabase db : DurableDatabase.values()) {
            if (db == DurableDatabase.POSTGRESQL || results.has(db)) {
                for (DurableContender c : ALL) {
                    views.add(results.on(db));
                    contenders.add(c);
                    labels.add(both ? c.label() + ", " + db.label() : c.label());
                }
            }
        }
        int width = both ? 760 : 680;
        int left = both ? 270 : 190;
        int right = width - 30;
        int top = 60;
        int rowHeight = 44;
        int bottom = top + rowHeight * labels.size();
        int height = bottom + 70;
        String[] series = {"p50", "p99"};
        String[] fields = {"p50Millis", "p99Millis"};
        String[] colours = {"#a0cbe8", "#4e79a7"};
        double max = 1;
        for (int r = 0; r < labels.size(); r++) {
            for (String field : fields) {
                double v = views.get(r).value("lateness", contenders.get(r), field);
                max = Double.isNaN(v) ? max : Math.max(max, v);
            }
        }
        int decades = Math.max(2, (int) Math.ceil(Math.log10(max)) + 1); // from 0.1 ms
        double low = 0.1;
        StringBuilder svg = Charts.start(width, height);
        svg.append("<text x=\"20\" y=\"24\" font-size=\"15\">Lateness of durable deadlines (ms after the "
                + "deadline, log scale, lower is better)</text>\n");
        for (int d = 0; d <= decades; d++) {
            int x = left + (right - left) * d / decades;
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>%n",
                    x,
                    top - 6,
                    x,
                    bottom));
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    x,
                    bottom + 16,
                    axisLabel(low * Math.pow(10, d))));
        }
        Targets.Target p99Target = Targets.load().get("durable-p99");
        int target = left + (int) ((right - left) * Math.log10(p99Target.threshold() / low) / decades);
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#e15759\" stroke-dasharray=\"4 3\"/>%n",
                target,
                top - 10,
                target,
                bottom));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" fill=\"#e15759\">target %s</text>%n",
                target,
                top - 14,
                p99Target.text().replace("lateness ", "")));
        for (int r = 0; r < labels.size(); r++) {
            int y = top + r * rowHeight;
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                    left - 8,
                    y + rowHeight / 2,
                    labels.get(r)));
            for (int k = 0; k < series.length; k++) {
                double v = views.get(r).value("lateness", contenders.get(r), fields[k]);
                double position = Double.isNaN(v) || v <= low ? 0 : Math.log10(v / low) / decades;
                int w = (int) ((right - left) * Math.min(1, position));
                int barY = y + 4 + k * 17;
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"15\" fill=\"%s\"/>%n",
                        left,
                        barY,
                        w,
                        colours[k]));
                svg.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%d\" font-size=\"10\">%s ms</text>%n",
                        left + w + 4,
                        barY + 11,
                        Report.fmt(v)));
            }
        }
        Charts.legend(svg, series, colours, left, 120, height);
        Files.writeString(
                docs.resolve(DurableReport.CHART), svg.append("</svg>\n").toString());
    }

    /** 0.1, 1, 10, 100, 1,000 ... */
    private static String axisLabel(double millis) {
        return millis < 1 ? String.format(Locale.ROOT, "%.1f", millis) : String.format(Locale.ROOT, "%,.0f", millis);
    }
}
