package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.wheeltimer.testsupport.CountingDataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The reads of a page that shows the table: each one statement, counts that stop at their limit,
 * deadlines per minute, the instances, one timeout by task and key, and keyset pages both ways.
 */
class TableOverviewTest extends OnEachDatabase {

    private static final String TASK = "order-payment";
    private static final String OTHER = "invoice-reminder";

    TableOverviewTest(TestDatabase database) {
        super(database);
    }

    /** Writes a row as the timer would have: pending (failedAt null) or given up. */
    private void row(String task, String key, long dueAt, Long failedAt) {
        fixture.jdbc.update(
                "INSERT INTO " + fixture.table + " (task, timeout_key, deadline, due_at, holder, version, attempts,"
                        + " last_error, failed_at, data) VALUES (?, ?, ?, ?, NULL, 1, ?, ?, ?, ?)",
                task,
                key,
                dueAt,
                failedAt == null ? dueAt : null,
                failedAt == null ? 0 : 3,
                failedAt == null ? null : "java.lang.IllegalStateException: down",
                failedAt,
                "data of " + key);
    }

    private TableOverview overview() {
        return fixture.builder().handler(TASK, t -> {}).build().overview();
    }

    @Test
    void taskCountsStopAtTheirLimitInOneStatement() {
        long far = Instant.now().plus(Duration.ofDays(1)).toEpochMilli();
        for (int i = 0; i < 7; i++) {
            row(TASK, "p" + i, far + i, null);
        }
        row(TASK, "f1", far, 1000L);
        row(OTHER, "p", far, null);
        row(OTHER, "f1", far, 1000L);
        row(OTHER, "f2", far, 2000L);
        CountingDataSource counting = CountingDataSource.counting(fixture.dataSource);
        TableOverview overview = JdbcDurableTimer.builder(
                        counting,
                        new org.springframework.jdbc.datasource.DataSourceTransactionManager(counting),
                        fixture.wheel)
                .tableName(fixture.table)
                .handler(TASK, t -> {})
                .build()
                .overview();
        overview.now(); // the dialect is found at the first use, with a statement of its own
        long before = counting.statements();

        assertThat(overview.taskCounts(5, 100))
                .containsExactly(new TableOverview.TaskCounts(OTHER, 1, 2), new TableOverview.TaskCounts(TASK, 5, 1));
        assertThat(overview.taskCounts(1000, 1)).containsExactly(new TableOverview.TaskCounts(OTHER, 1, 2));
        assertThat(counting.statements() - before).isEqualTo(2);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> overview.taskCounts(0, 10))
                .withMessage("countLimit must be 1 to 1000000, was 0");
    }

    @Test
    void dueByMinuteCountsEachTasksDeadlinesInTheWindow() {
        Instant from = Instant.parse("2030-01-01T00:00:00Z");
        long start = from.toEpochMilli();
        row(TASK, "a", start, null);
        row(TASK, "b", start + 59_999, null);
        row(TASK, "c", start + 60_000, null);
        row(TASK, "late", start - 1, null);
        row(TASK, "beyond", start + 3 * 60_000, null);
        row(OTHER, "d", start + 2 * 60_000 + 5, null);
        row(OTHER, "given-up", start, 1000L);

        assertThat(overview().dueByMinute(List.of(TASK, OTHER), from, 3))
                .containsExactlyInAnyOrder(
                        new TableOverview.DueInMinute(TASK, 0, 2),
                        new TableOverview.DueInMinute(TASK, 1, 1),
                        new TableOverview.DueInMinute(OTHER, 2, 1));
        assertThat(overview().dueByMinute(List.of(), from, 60)).isEmpty();
    }

    @Test
    void instancesShowTheirLeaseAndWhatTheyHold() {
        JdbcDurableTimer durable =
                fixture.start(fixture.builder().instanceId("instance-a").handler(TASK, t -> {}));
        durable.schedule(TASK, "soon", Duration.ofSeconds(5));
        durable.schedule(TASK, "later", Duration.ofHours(1));

        List<TableOverview.Instance> instances = durable.overview().instances(10);

        assertThat(instances).singleElement().satisfies(instance -> {
            assertThat(instance.instanceId()).isEqualTo("instance-a");
            assertThat(instance.held()).isEqualTo(1);
            assertThat(instance.leaseUntil()).isAfter(durable.overview().now().minusSeconds(1));
            if (database == TestDatabase.H2) {
                assertThat(instance.lifeLockHeld()).isNull();
            } else {
                assertThat(instance.lifeLockHeld()).isTrue();
            }
        });
    }

    @Test
    void lookupFindsAPendingOrAGivenUpTimeout() {
        row(TASK, "pending", 5000, null);
        row(TASK, "given-up", 5000, 7000L);

        TableOverview.Stored pending = overview().lookup(TASK, "pending").orElseThrow();
        assertThat(pending.isPending()).isTrue();
        assertThat(pending.dueAt()).isEqualTo(Instant.ofEpochMilli(5000));
        assertThat(pending.timeout().attempt()).isEqualTo(1);
        assertThat(pending.timeout().data()).isEqualTo("data of pending");

        TableOverview.Stored failed = overview().lookup(TASK, "given-up").orElseThrow();
        assertThat(failed.isPending()).isFalse();
        assertThat(failed.failedAt()).isEqualTo(Instant.ofEpochMilli(7000));
        assertThat(failed.lastError()).contains("down");
        assertThat(failed.timeout().attempt()).isEqualTo(3);

        assertThat(overview().lookup(TASK, "none")).isEmpty();
        assertThat(overview().lookup(OTHER, "pending")).isEmpty();
    }

    @Nested
    class Pages {

        @Test
        void pendingPagesGoForwardAndBackBySoonestDueThenKey() {
            row(TASK, "b", 1000, null);
            row(TASK, "a", 1000, null);
            row(TASK, "c", 2000, null);
            row(TASK, "d", 3000, null);
            row(TASK, "e", 4000, null);
            row(TASK, "failed", 1, 5L);
            row(OTHER, "x", 1500, null);
            TableOverview overview = overview();

            List<TableOverview.Stored> first = overview.pendingAfter(TASK, null, 2);
            assertThat(keys(first)).containsExactly("a", "b");
            List<TableOverview.Stored> second =
                    overview.pendingAfter(TASK, first.get(1).position(), 2);
            assertThat(keys(second)).containsExactly("c", "d");
            assertThat(keys(overview.pendingAfter(TASK, second.get(1).position(), 2)))
                    .containsExactly("e");
            assertThat(keys(overview.pendingBefore(TASK, second.get(0).position(), 2)))
                    .containsExactly("a", "b");
            assertThat(keys(overview.pendingBefore(TASK, second.get(1).position(), 2)))
                    .containsExactly("b", "c");
            assertThat(overview.pendingBefore(TASK, first.get(0).position(), 2)).isEmpty();
        }

        @Test
        void givenUpPagesGoForwardAndBackByLatestFailureThenKey() {
            row(TASK, "old", 1, 1000L);
            row(TASK, "b", 1, 3000L);
            row(TASK, "a", 1, 3000L);
            row(TASK, "newest", 1, 9000L);
            row(TASK, "pending", 1, null);
            TableOverview overview = overview();

            List<TableOverview.Stored> first = overview.failedAfter(TASK, null, 2);
            assertThat(keys(first)).containsExactly("newest", "a");
            List<TableOverview.Stored> second =
                    overview.failedAfter(TASK, first.get(1).position(), 2);
            assertThat(keys(second)).containsExactly("b", "old");
            assertThat(keys(overview.failedBefore(TASK, second.get(0).position(), 5)))
                    .containsExactly("newest", "a");
            assertThat(overview.failedAfter(TASK, second.get(1).position(), 2)).isEmpty();
        }

        @Test
        void aPageLimitIsOneToAThousand() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> overview().pendingAfter(TASK, null, 1001))
                    .withMessage("limit must be 1 to 1000, was 1001");
        }

        private List<String> keys(List<TableOverview.Stored> rows) {
            return rows.stream().map(r -> r.timeout().key()).toList();
        }
    }

    @Test
    void anUnknownTaskHasNoRowsAndNoCounts() {
        assertThat(overview().taskCounts(10, 10)).isEmpty();
        assertThat(overview().dueByMinute(Set.of("none"), Instant.now(), 60)).isEmpty();
    }
}
