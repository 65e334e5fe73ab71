package io.wheeltimer.dashboard;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.TimeoutInfo;
import io.wheeltimer.TimerStats;
import java.util.List;
import java.util.Map;

/** The in-memory wheels: one block per {@code HashedWheelTimer} bean, with its next 20 timeouts. */
final class WheelSection {

    static final int UPCOMING = 20;

    private WheelSection() {}

    static void write(StringBuilder out, Map<String, HashedWheelTimer> timers) {
        out.append("<section><h2>Wheels</h2>");
        if (timers.isEmpty()) {
            out.append("<p>No HashedWheelTimer bean.</p>");
        }
        for (Map.Entry<String, HashedWheelTimer> entry : timers.entrySet()) {
            HashedWheelTimer timer = entry.getValue();
            TimerStats stats = timer.stats();
            out.append("<div class=\"card\" data-testid=\"wheel\" data-name=\"")
                    .append(Html.text(entry.getKey()))
                    .append("\"><h3>")
                    .append(Html.text(entry.getKey()))
                    .append("</h3><dl>");
            field(out, "state", "wheel-state", stats.state());
            field(out, "tick", "wheel-tick", stats.ticks());
            field(out, "pending", "wheel-pending", stats.pending());
            field(out, "tick lag", "wheel-tick-lag", Html.millis(stats.tickLag()));
            field(out, "tick duration", "wheel-tick-duration", Html.millis(timer.tickDuration()));
            out.append("</dl><h4>Next ").append(UPCOMING).append("</h4>");
            List<TimeoutInfo> upcoming;
            try {
                upcoming = timer.upcoming(UPCOMING);
            } catch (IllegalStateException busy) {
                out.append("<p class=\"note\">")
                        .append(Html.text(busy.getMessage()))
                        .append("</p>");
                upcoming = List.of();
            }
            out.append("<ol data-testid=\"wheel-upcoming\">");
            for (TimeoutInfo info : upcoming) {
                out.append("<li><span class=\"num\">in ")
                        .append(Html.millis(info.remaining()))
                        .append("</span> ")
                        .append(Html.text(info.task()))
                        .append("</li>");
            }
            out.append("</ol></div>");
        }
        out.append("</section>");
    }

    private static void field(StringBuilder out, String name, String testId, Object value) {
        out.append("<dt>")
                .append(name)
                .append("</dt><dd data-testid=\"")
                .append(testId)
                .append("\">")
                .append(Html.text(value))
                .append("</dd>");
    }
}
