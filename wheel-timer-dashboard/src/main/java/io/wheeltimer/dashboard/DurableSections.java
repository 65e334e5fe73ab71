package io.wheeltimer.dashboard;

import java.util.Map;

/**
 * The durable timeouts' part of the dashboard, present only when durable timeouts are configured (an
 * interface, so that the pages load without {@code wheel-timer-jdbc} on the class path).
 */
interface DurableSections {

    /** Writes the durable figures of the overview (tasks, upcoming deadlines, instances): three statements. */
    void figures(StringBuilder out, Viewer viewer);

    /** Writes the lookup form and, when {@code task} and {@code key} are given, what it finds: one statement. */
    void lookup(StringBuilder out, Viewer viewer, String task, String key);

    /**
     * Writes a page of the pending ({@code failed} false) or given-up timeouts of {@code task}, at the
     * position the query parameters name: one statement.
     */
    void list(StringBuilder out, Viewer viewer, String task, boolean failed, Map<String, String> params);

    /**
     * Does {@code action} (retry, discard, cancel, run-now) to the timeout of {@code task} for
     * {@code key}; whether there was one it applies to.
     *
     * @throws IllegalArgumentException for an unknown action, naming it and the known ones
     */
    boolean act(String action, String task, String key);
}
