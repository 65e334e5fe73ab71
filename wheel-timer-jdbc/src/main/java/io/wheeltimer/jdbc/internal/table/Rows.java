package io.wheeltimer.jdbc.internal.table;

import java.util.List;
import org.springframework.jdbc.core.RowMapper;

/** The columns of the two tables, and how their rows are read into the records of this package. */
final class Rows {

    private Rows() {}

    /** The columns {@link #PENDING} reads, of the table aliased {@code alias}. */
    static String columns(String alias) {
        String a = alias + ".";
        return a + "task, " + a + "timeout_key, " + a + "deadline, " + a + "due_at, " + a + "version, " + a
                + "attempts, " + a + "holder";
    }

    static final RowMapper<PendingRow> PENDING = (rs, i) -> new PendingRow(
            rs.getString("task"),
            rs.getString("timeout_key"),
            rs.getLong("deadline"),
            rs.getLong("due_at"),
            rs.getLong("version"),
            rs.getInt("attempts"),
            rs.getString("holder"));

    static final RowMapper<StoredData> STORED_DATA =
            (rs, i) -> new StoredData(rs.getString("data"), rs.getString("trace_context"));

    /** The columns {@link #WHOLE} reads. */
    static final String WHOLE_COLUMNS =
            "task, timeout_key, deadline, due_at, holder, attempts, data, failed_at, last_error";

    static final RowMapper<WholeRow> WHOLE = (rs, i) -> new WholeRow(
            rs.getString("task"),
            rs.getString("timeout_key"),
            rs.getLong("deadline"),
            rs.getObject("due_at") == null ? null : rs.getLong("due_at"),
            rs.getString("holder"),
            rs.getInt("attempts"),
            rs.getString("data"),
            rs.getObject("failed_at") == null ? null : rs.getLong("failed_at"),
            rs.getString("last_error"));

    /** The columns of the timeouts table this version reads and writes. */
    static final List<String> TIMEOUT_COLUMNS = List.of(
            "task",
            "timeout_key",
            "deadline",
            "due_at",
            "holder",
            "version",
            "attempts",
            "last_error",
            "failed_at",
            "data",
            "trace_context");

    /** The columns of the instances table. */
    static final List<String> INSTANCE_COLUMNS = List.of("instance_id", "lease_until", "life_lock");

    /** The instances table of {@code table}: one lease row per live instance. */
    static String instancesTable(String table) {
        return table + "_instances";
    }
}
