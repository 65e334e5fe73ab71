package io.wheeltimer.dashboard;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Charts drawn on the server as inline SVG: they read without JavaScript, and a refresh swaps them
 * with the figures around them. Each bar carries a {@code <title>} with its exact count.
 */
final class Charts {

    private static final String[] COLOURS = {"#2f6fb0", "#c2571a", "#3c8d40", "#8e44ad", "#b03a48", "#6b7b8c"};

    private Charts() {}

    /** The colour of the {@code i}-th task in the upcoming chart and its legend. */
    static String colour(int i) {
        return COLOURS[i % COLOURS.length];
    }

    /** A histogram of lateness: one bar per bucket of {@code bounds}, then the overflow bucket. */
    static String lateness(String task, long[] buckets, List<Duration> bounds) {
        int bar = 22;
        int height = 60;
        long max = 1;
        for (long b : buckets) {
            max = Math.max(max, b);
        }
        int width = buckets.length * bar;
        StringBuilder svg = open(
                "data-testid=\"lateness-chart\" data-task=\"" + Html.text(task) + "\"",
                width,
                height,
                "lateness histogram of " + Html.text(task));
        for (int i = 0; i < buckets.length; i++) {
            String label =
                    i < bounds.size() ? "\u2264 " + label(bounds.get(i)) : "> " + label(bounds.get(bounds.size() - 1));
            int h = buckets[i] == 0 ? 0 : (int) Math.max(1, Math.round((double) buckets[i] / max * height));
            svg.append("<g><title>")
                    .append(Html.text(label))
                    .append(": ")
                    .append(buckets[i])
                    .append("</title><rect x=\"")
                    .append(i * bar + 2)
                    .append("\" y=\"")
                    .append(height - h)
                    .append("\" width=\"")
                    .append(bar - 4)
                    .append("\" height=\"")
                    .append(h)
                    .append("\" fill=\"#2f6fb0\"/><rect x=\"")
                    .append(i * bar + 2)
                    .append("\" y=\"0\" width=\"")
                    .append(bar - 4)
                    .append("\" height=\"")
                    .append(height)
                    .append("\" fill=\"transparent\"/></g>");
            if (i % 3 == 0) {
                axisLabel(
                        svg,
                        i * bar + 2,
                        height,
                        Html.text(label(i < bounds.size() ? bounds.get(i) : bounds.get(bounds.size() - 1))));
            }
        }
        return svg.append("</svg>").toString();
    }

    /**
     * The opening tag of a chart {@code width} wide: {@code height} for its bars and 14 below them for their
     * labels; {@code attributes} (HTML-escaped already) come first, {@code label} (likewise) is its accessible name.
     */
    private static StringBuilder open(String attributes, int width, int height, String label) {
        return new StringBuilder("<svg ")
                .append(attributes)
                .append(" class=\"chart\" viewBox=\"0 0 ")
                .append(width)
                .append(' ')
                .append(height + 14)
                .append("\" width=\"")
                .append(width)
                .append("\" height=\"")
                .append(height + 14)
                .append("\" role=\"img\" aria-label=\"")
                .append(label)
                .append("\">");
    }

    /** A label {@code text} (HTML-escaped already) under the bars of a chart {@code height} high, from {@code x}. */
    private static void axisLabel(StringBuilder svg, int x, int height, String text) {
        svg.append("<text x=\"")
                .append(x)
                .append("\" y=\"")
                .append(height + 11)
                .append("\" font-size=\"9\">")
                .append(text)
                .append("</text>");
    }

    /**
     * Deadlines per minute of the next {@code minutes} minutes, stacked by task (in the order of
     * {@code perTask}); each value is an array of {@code minutes} counts.
     */
    static String upcoming(Map<String, long[]> perTask, int minutes) {
        int bar = 10;
        int height = 80;
        long max = 1;
        for (int m = 0; m < minutes; m++) {
            long sum = 0;
            for (long[] counts : perTask.values()) {
                sum += counts[m];
            }
            max = Math.max(max, sum);
        }
        int width = minutes * bar;
        StringBuilder svg =
                open("data-testid=\"upcoming-chart\"", width, height, "deadlines per minute of the next hour");
        for (int m = 0; m < minutes; m++) {
            int y = height;
            int i = 0;
            for (Map.Entry<String, long[]> task : perTask.entrySet()) {
                long count = task.getValue()[m];
                if (count > 0) {
                    int h = (int) Math.max(1, Math.round((double) count / max * height));
                    y -= h;
                    svg.append("<rect x=\"")
                            .append(m * bar + 1)
                            .append("\" y=\"")
                            .append(y)
                            .append("\" width=\"")
                            .append(bar - 2)
                            .append("\" height=\"")
                            .append(h)
                            .append("\" fill=\"")
                            .append(colour(i))
                            .append("\"><title>")
                            .append(Html.text(task.getKey()))
                            .append(", minute ")
                            .append(m + 1)
                            .append(": ")
                            .append(count)
                            .append("</title></rect>");
                }
                i++;
            }
            if (m % 10 == 0) {
                axisLabel(svg, m * bar + 1, height, "+" + m + "m");
            }
        }
        return svg.append("</svg>").toString();
    }

    private static String label(Duration bound) {
        long ms = bound.toMillis();
        return ms < 1000 ? ms + "ms" : ms % 1000 == 0 ? (ms / 1000) + "s" : (ms / 1000.0) + "s";
    }
}
