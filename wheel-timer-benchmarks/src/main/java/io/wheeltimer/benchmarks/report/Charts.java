package io.wheeltimer.benchmarks.report;

import java.util.Locale;

/** The SVG charts of the benchmark report: their common start, a grouped bar chart, and a legend. */
final class Charts {

    private Charts() {}

    /** The start of an SVG document {@code width} × {@code height} on a white background. */
    static StringBuilder start(int width, int height) {
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                        + "font-family=\"sans-serif\" font-size=\"12\">%n",
                width,
                height));
        return svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    }

    /**
     * A grouped bar chart: a group per label, in it a bar per series ({@code values[group][series]}, not a
     * number drawn as 0), each with its value above it; a linear axis from 0 with four grid lines.
     *
     * @param padding the space at each side of a group's bars
     */
    static String bars(
            int width,
            int height,
            int bottom,
            int padding,
            String title,
            String[] groups,
            String[] series,
            String[] colours,
            double[][] values) {
        int left = 70;
        int top = 40;
        double max = 0;
        for (double[] group : values) {
            for (double v : group) {
                max = Double.isNaN(v) ? max : Math.max(max, v);
            }
        }
        max = max <= 0 ? 1 : max * 1.1;
        StringBuilder svg = start(width, height);
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"15\">%s</text>%n", left, title));
        for (int i = 0; i <= 4; i++) {
            int y = (int) (bottom - (bottom - top) * i / 4.0);
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>%n",
                    left,
                    y,
                    width - 20,
                    y));
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                    left - 6,
                    y + 4,
                    Report.fmt(max * i / 4)));
        }
        int group = (width - left - 20) / groups.length;
        int bar = (group - 2 * padding) / series.length;
        for (int g = 0; g < groups.length; g++) {
            for (int k = 0; k < series.length; k++) {
                double v = Double.isNaN(values[g][k]) ? 0 : values[g][k];
                int h = (int) ((bottom - top) * v / max);
                int x = left + g * group + padding + k * bar;
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                        x,
                        bottom - h,
                        bar - 3,
                        h,
                        colours[k]));
                svg.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%s</text>%n",
                        x + (bar - 3) / 2,
                        bottom - h - 4,
                        Report.fmt(v)));
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    left + g * group + group / 2,
                    bottom + 18,
                    groups[g]));
        }
        legend(svg, series, colours, left, 170, height);
        return svg.append("</svg>\n").toString();
    }

    /** The legend under a chart: a colour swatch and the name of each series, {@code spacing} apart. */
    static void legend(StringBuilder svg, String[] series, String[] colours, int left, int spacing, int height) {
        for (int k = 0; k < series.length; k++) {
            int x = left + k * spacing;
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
                    x,
                    height - 30,
                    colours[k]));
            svg.append(
                    String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", x + 16, height - 20, series[k]));
        }
    }
}
