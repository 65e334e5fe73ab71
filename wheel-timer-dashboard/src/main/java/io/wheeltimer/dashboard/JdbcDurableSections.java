package io.wheeltimer.dashboard;

import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.jdbc.TableOverview;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The durable part of the dashboard, read through {@link TableOverview}: every read one bounded
 * statement (counts stop at {@value #COUNT_LIMIT}; pages are keyset pages of {@value #PAGE_SIZE}).
 * Nothing is read but when a page asks.
 */
final class JdbcDurableSections implements DurableSections {

    /** Counts stop here: a count this high reads "10000+". */
    static final int COUNT_LIMIT = 10_000;

    static final int PAGE_SIZE = 50;

    /** The upcoming chart's span, in minutes. */
    static final int UPCOMING_MINUTES = 60;

    private static final int TASK_LIMIT = 100;
    private static final int INSTANCE_LIMIT = 100;

    private final JdbcDurableTimer durable;
    private final LatenessWindow lateness;
    private final TransactionTemplate transactions;

    JdbcDurableSections(JdbcDurableTimer durable, LatenessWindow lateness, TransactionTemplate transactions) {
        this.durable = durable;
        this.lateness = lateness;
        this.transactions = transactions;
    }

    @Override
    public void figures(StringBuilder out, Viewer viewer) {
        TableOverview overview = durable.overview();
        Set<String> handled = durable.tasks();
        Map<String, TableOverview.TaskCounts> counts = new LinkedHashMap<>();
        for (TableOverview.TaskCounts c : overview.taskCounts(COUNT_LIMIT, TASK_LIMIT)) {
            counts.put(c.task(), c);
        }
        Set<String> tasks = new TreeSet<>(counts.keySet());
        tasks.addAll(handled);

        out.append("<section><h2>Durable timeouts <small>table ")
                .append(Html.text(overview.tableName()))
                .append(", instance ")
                .append(Html.text(durable.instanceId()))
                .append("</small></h2>");
        out.append("<table class=\"grid\"><thead><tr><th>task</th><th>pending</th><th>given up</th>"
                + "<th>handled here</th><th colspan=\"4\">lateness, last 5 min (ms): p50 / p99 / max / count</th>"
                + "<th>histogram</th></tr></thead><tbody>");
        for (String task : tasks) {
            TableOverview.TaskCounts c = counts.getOrDefault(task, new TableOverview.TaskCounts(task, 0, 0));
            LatenessWindow.Figures f = lateness.figures(task);
            String q = Html.query(task);
            out.append("<tr data-testid=\"durable-task\" data-task=\"")
                    .append(Html.text(task))
                    .append("\"><th scope=\"row\">")
                    .append(Html.text(task))
                    .append("</th>");
            listCell(out, viewer, "pending", q, c.pending());
            listCell(out, viewer, "failed", q, c.failed());
            out.append("<td data-testid=\"handled\">")
                    .append(handled.contains(task) ? "yes" : "no")
                    .append("</td><td class=\"num\" data-testid=\"lateness-p50\">")
                    .append(f.p50Millis())
                    .append("</td><td class=\"num\" data-testid=\"lateness-p99\">")
                    .append(f.p99Millis())
                    .append("</td><td class=\"num\" data-testid=\"lateness-max\">")
                    .append(f.maxMillis())
                    .append("</td><td class=\"num\" data-testid=\"lateness-count\">")
                    .append(f.count())
                    .append("</td><td>")
                    .append(Charts.lateness(task, f.buckets(), LatenessWindow.Figures.bounds()))
                    .append("</td></tr>");
        }
        if (tasks.isEmpty()) {
            out.append("<tr><td colspan=\"9\">No durable timeouts and no handlers.</td></tr>");
        }
        out.append("</tbody></table>");

        Instant now = overview.now();
        Map<String, long[]> perTask = new LinkedHashMap<>();
        for (String task : tasks) {
            perTask.put(task, new long[UPCOMING_MINUTES]);
        }
        for (TableOverview.DueInMinute due : overview.dueByMinute(tasks, now, UPCOMING_MINUTES)) {
            long[] minutes = perTask.get(due.task());
            if (minutes != null && due.minute() >= 0 && due.minute() < UPCOMING_MINUTES) {
                minutes[due.minute()] += due.count();
            }
        }
        out.append("<h3>Due in each minute of the next hour</h3><div class=\"legend\">");
        int i = 0;
        for (String task : perTask.keySet()) {
            out.append("<span><i style=\"background:")
                    .append(Charts.colour(i++))
                    .append("\"></i>")
                    .append(Html.text(task))
                    .append("</span>");
        }
        out.append("</div>").append(Charts.upcoming(perTask, UPCOMING_MINUTES));

        out.append("<h3>Instances</h3><table class=\"grid\"><thead><tr><th>instance</th><th>lease until"
                + " (database clock)</th><th>lease left</th><th>life lock</th><th>holds</th></tr></thead><tbody>");
        for (TableOverview.Instance instance : overview.instances(INSTANCE_LIMIT)) {
            Duration left = Duration.between(now, instance.leaseUntil());
            out.append("<tr data-testid=\"instance\" data-instance=\"")
                    .append(Html.text(instance.instanceId()))
                    .append("\"><th scope=\"row\">")
                    .append(Html.text(instance.instanceId()))
                    .append(instance.instanceId().equals(durable.instanceId()) ? " (this one)" : "")
                    .append("</th><td>")
                    .append(Html.instant(instance.leaseUntil()))
                    .append("</td><td class=\"num\">")
                    .append(left.isNegative() ? "ended" : Html.millis(left))
                    .append("</td><td data-testid=\"life-lock\">")
                    .append(instance.lifeLockHeld() == null ? "none here" : instance.lifeLockHeld() ? "held" : "free")
                    .append("</td><td class=\"num\" data-testid=\"instance-held\">")
                    .append(instance.held())
                    .append("</td></tr>");
        }
        out.append("</tbody></table></section>");
    }

    /** A cell of a task's row: how many timeouts its {@code list} holds, linked to that list. */
    private static void listCell(StringBuilder out, Viewer viewer, String list, String task, long size) {
        out.append("<td class=\"num\"><a data-testid=\"")
                .append(list)
                .append("-link\" href=\"")
                .append(viewer.path())
                .append('/')
                .append(list)
                .append("?task=")
                .append(task)
                .append("\"><span data-testid=\"")
                .append(list)
                .append("-count\">")
                .append(count(size))
                .append("</span></a></td>");
    }

    private static String count(long count) {
        return count >= COUNT_LIMIT ? COUNT_LIMIT + "+" : Long.toString(count);
    }

    @Override
    public void lookup(StringBuilder out, Viewer viewer, String task, String key) {
        out.append("<section><h2>Find a timeout</h2><form method=\"get\" action=\"")
                .append(viewer.path())
                .append("\" class=\"lookup\"><label>task <input data-testid=\"lookup-task\" name=\"task\" required"
                        + " maxlength=\"200\" value=\"")
                .append(Html.text(task))
                .append("\"></label> <label>key <input data-testid=\"lookup-key\" name=\"key\" required"
                        + " maxlength=\"200\" value=\"")
                .append(Html.text(key))
                .append("\"></label> <button data-testid=\"lookup-submit\" type=\"submit\">Find</button></form>");
        if (task != null && key != null && !task.isBlank() && !key.isBlank()) {
            Optional<TableOverview.Stored> found;
            try {
                found = durable.overview().lookup(task, key);
            } catch (IllegalArgumentException bad) {
                out.append("<p data-testid=\"lookup-result\" class=\"note\">")
                        .append(Html.text(bad.getMessage()))
                        .append("</p></section>");
                return;
            }
            if (found.isEmpty()) {
                out.append("<p data-testid=\"lookup-result\">none</p>");
            } else {
                TableOverview.Stored s = found.get();
                out.append("<table class=\"grid\" data-testid=\"lookup-result\">");
                header(out, s.isPending());
                row(out, viewer, s, false);
                out.append("</table>");
            }
        }
        out.append("</section>");
    }

    private static void header(StringBuilder out, boolean pending) {
        out.append("<thead><tr><th>key</th><th>state</th><th>deadline</th>")
                .append(pending ? "<th>due</th>" : "<th>failed at</th>")
                .append("<th>attempt</th><th>holder</th><th>data</th>")
                .append(pending ? "" : "<th>last error</th>")
                .append("<th></th></tr></thead>");
    }

    private void row(StringBuilder out, Viewer viewer, TableOverview.Stored s, boolean actions) {
        DurableTimeout t = s.timeout();
        boolean pending = s.isPending();
        out.append("<tr data-testid=\"timeout\" data-task=\"")
                .append(Html.text(t.task()))
                .append("\" data-key=\"")
                .append(Html.text(t.key()))
                .append("\"><td>")
                .append(Html.text(t.key()))
                .append("</td><td data-testid=\"timeout-state\">")
                .append(pending ? "pending" : "failed")
                .append("</td><td>")
                .append(Html.instant(t.deadline()))
                .append("</td><td>")
                .append(Html.instant(pending ? s.dueAt() : s.failedAt()))
                .append("</td><td class=\"num\">")
                .append(t.attempt())
                .append("</td><td>")
                .append(Html.text(s.holder() == null ? "-" : s.holder()))
                .append("</td><td data-testid=\"timeout-data\"><code>")
                .append(viewer.data(t.data()))
                .append("</code></td>");
        if (!pending) {
            out.append("<td data-testid=\"timeout-last-error\"><code>")
                    .append(viewer.data(s.lastError()))
                    .append("</code></td>");
        }
        out.append("<td>");
        if (actions && viewer.writes()) {
            if (pending) {
                action(out, viewer, "cancel", t, "pending");
                if (durable.tasks().contains(t.task())) {
                    action(out, viewer, "run-now", t, "pending");
                }
            } else {
                action(out, viewer, "retry", t, "failed");
                action(out, viewer, "discard", t, "failed");
            }
        }
        out.append("</td></tr>");
    }

    private static void action(StringBuilder out, Viewer viewer, String action, DurableTimeout t, String back) {
        out.append("<form method=\"post\" class=\"action\" action=\"")
                .append(viewer.path())
                .append("/actions/")
                .append(action)
                .append("\"><input type=\"hidden\" name=\"task\" value=\"")
                .append(Html.text(t.task()))
                .append("\"><input type=\"hidden\" name=\"key\" value=\"")
                .append(Html.text(t.key()))
                .append("\"><input type=\"hidden\" name=\"back\" value=\"")
                .append(back)
                .append("\">")
                .append(viewer.tokenFields())
                .append("<button type=\"submit\" data-testid=\"")
                .append(action)
                .append("\">")
                .append(action.replace('-', ' '))
                .append("</button></form>");
    }

    @Override
    public void list(StringBuilder out, Viewer viewer, String task, boolean failed, Map<String, String> params) {
        TableOverview overview = durable.overview();
        TableOverview.Position after = position(params, "after");
        TableOverview.Position before = position(params, "before");
        List<TableOverview.Stored> rows;
        boolean hasNext;
        boolean hasPrevious;
        if (before != null) {
            rows = new ArrayList<>(
                    failed
                            ? overview.failedBefore(task, before, PAGE_SIZE + 1)
                            : overview.pendingBefore(task, before, PAGE_SIZE + 1));
            hasPrevious = rows.size() > PAGE_SIZE;
            if (hasPrevious) {
                rows.remove(0);
            }
            hasNext = true;
        } else {
            rows = new ArrayList<>(
                    failed
                            ? overview.failedAfter(task, after, PAGE_SIZE + 1)
                            : overview.pendingAfter(task, after, PAGE_SIZE + 1));
            hasNext = rows.size() > PAGE_SIZE;
            if (hasNext) {
                rows.remove(rows.size() - 1);
            }
            hasPrevious = after != null;
        }
        out.append("<section><h2>")
                .append(failed ? "Given up" : "Pending")
                .append(": ")
                .append(Html.text(task))
                .append("</h2><p>")
                .append(failed ? "Latest failure first." : "Soonest due first.")
                .append(" <a href=\"")
                .append(viewer.path())
                .append(failed ? "/pending" : "/failed")
                .append("?task=")
                .append(Html.query(task))
                .append("\">")
                .append(failed ? "pending" : "given up")
                .append(" of this task</a></p><table class=\"grid\" data-testid=\"timeout-list\">");
        header(out, !failed);
        out.append("<tbody>");
        for (TableOverview.Stored s : rows) {
            row(out, viewer, s, true);
        }
        if (rows.isEmpty()) {
            out.append("<tr><td colspan=\"9\">none</td></tr>");
        }
        out.append("</tbody></table><nav class=\"pages\">");
        String base = viewer.path() + (failed ? "/failed" : "/pending") + "?task=" + Html.query(task);
        if (hasPrevious && !rows.isEmpty()) {
            out.append("<a data-testid=\"page-previous\" rel=\"prev\" href=\"")
                    .append(Html.text(base + link("before", rows.get(0).position())))
                    .append("\">&larr; previous</a> ");
        }
        if (hasNext && !rows.isEmpty()) {
            out.append("<a data-testid=\"page-next\" rel=\"next\" href=\"")
                    .append(Html.text(
                            base + link("after", rows.get(rows.size() - 1).position())))
                    .append("\">next &rarr;</a>");
        }
        out.append("</nav></section>");
    }

    private static String link(String side, TableOverview.Position position) {
        return "&" + side + "At=" + position.at().toEpochMilli() + "&" + side + "Key=" + Html.query(position.key());
    }

    private static TableOverview.Position position(Map<String, String> params, String side) {
        String at = params.get(side + "At");
        String key = params.get(side + "Key");
        if (at == null || key == null) {
            return null;
        }
        try {
            return new TableOverview.Position(Instant.ofEpochMilli(Long.parseLong(at)), key);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    side + "At must be epoch milliseconds (a whole number), was '" + at + "'", e);
        }
    }

    @Override
    public boolean act(String action, String task, String key) {
        return switch (action) {
            case "retry" -> durable.retry(task, key);
            case "discard" -> durable.discard(task, key);
            case "cancel" -> durable.cancel(task, key);
            case "run-now" -> Boolean.TRUE.equals(transactions.execute(status -> runNow(task, key)));
            default ->
                throw new IllegalArgumentException(
                        "action must be one of retry, discard, cancel, run-now, was '" + action + "'");
        };
    }

    /**
     * Moves a pending timeout's deadline to now, with its data: the cancel locks the row, so a run that
     * took it first leaves nothing to schedule again (the whole in one transaction).
     */
    private boolean runNow(String task, String key) {
        Optional<DurableTimeout> pending = durable.find(task, key);
        if (pending.isEmpty() || !durable.cancel(task, key)) {
            return false;
        }
        durable.schedule(task, key, Instant.now(), pending.get().data());
        return true;
    }
}
