package io.wheeltimer.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CountingDataSourceTest {

    private static final AtomicInteger DATABASES = new AtomicInteger();

    private JdbcDataSource h2;

    @BeforeEach
    void newDatabase() throws Exception {
        h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:counting" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
        try (Connection connection = h2.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE t (id INT PRIMARY KEY)");
        }
    }

    @Test
    void recordsEachRunWithItsThreadSqlAndRowsWritten() throws Exception {
        CountingDataSource counting = CountingDataSource.recording(h2);
        try (Connection connection = counting.getConnection();
                PreparedStatement insert = connection.prepareStatement("INSERT INTO t (id) VALUES (?)");
                Statement statement = connection.createStatement()) {
            insert.setInt(1, 1);
            insert.executeUpdate();
            statement.executeUpdate("DELETE FROM t");
        }

        assertThat(counting.executed())
                .extracting(CountingDataSource.Executed::sql, CountingDataSource.Executed::rowsWritten)
                .containsExactly(tuple("INSERT INTO t (id) VALUES (?)", 1), tuple("DELETE FROM t", 1));
        assertThat(counting.executed())
                .allMatch(e -> e.thread().equals(Thread.currentThread().getName()));
        assertThat(counting.statements()).isEqualTo(2);
    }

    @Test
    void recordsTheValuesBoundToEachRunForAnotherStatementToTakeAndTheTransactionCalls() throws Exception {
        CountingDataSource counting = CountingDataSource.recording(h2);
        try (Connection connection = counting.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t (id) VALUES (?)")) {
                insert.setInt(1, 7);
                insert.executeUpdate();
            }
            connection.commit();
            connection.setAutoCommit(true);
        }
        CountingDataSource.Executed insert = counting.executed().get(0);
        try (Connection connection = h2.getConnection();
                PreparedStatement select = connection.prepareStatement("SELECT COUNT(*) FROM t WHERE id = ?")) {
            insert.withSql("SELECT COUNT(*) FROM t WHERE id = ?").bindTo(select);
            try (var rows = select.executeQuery()) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getInt(1))
                        .as("rows with the id bound to the insert")
                        .isOne();
            }
        }
        assertThat(counting.transactionCalls())
                .extracting(CountingDataSource.Executed::sql)
                .containsExactly("AUTOCOMMIT false", "COMMIT", "AUTOCOMMIT true");
        counting.clear();
        assertThat(counting.transactionCalls()).isEmpty();
    }

    @Test
    void aBatchCountsEachStatementAndIsRecordedAsOneRun() throws Exception {
        CountingDataSource counting = CountingDataSource.recording(h2);
        try (Connection connection = counting.getConnection();
                PreparedStatement insert = connection.prepareStatement("INSERT INTO t (id) VALUES (?)")) {
            for (int id = 1; id <= 3; id++) {
                insert.setInt(1, id);
                insert.addBatch();
            }
            insert.executeBatch();
        }

        assertThat(counting.statements()).isEqualTo(3);
        assertThat(counting.executed())
                .singleElement()
                .satisfies(run -> assertThat(run.rowsWritten()).isEqualTo(3));
    }

    @Test
    void countsCommitsAndRollbacksApart() throws Exception {
        CountingDataSource counting = CountingDataSource.counting(h2);
        try (Connection connection = counting.getConnection();
                Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            statement.executeUpdate("INSERT INTO t (id) VALUES (1)");
            connection.commit();
            statement.executeUpdate("INSERT INTO t (id) VALUES (2)");
            connection.rollback();
        }

        assertThat(counting.statements()).isEqualTo(2);
        assertThat(counting.commits()).isOne();
        assertThat(counting.rollbacks()).isOne();
    }

    @Test
    void clearForgetsTheRunsButNotTheCount() throws Exception {
        CountingDataSource counting = CountingDataSource.recording(h2);
        try (Connection connection = counting.getConnection();
                Statement statement = connection.createStatement()) {
            statement.executeQuery("SELECT COUNT(*) FROM t").close();
            counting.clear();
            statement.executeQuery("SELECT id FROM t").close();
        }

        assertThat(counting.executed())
                .extracting(CountingDataSource.Executed::sql)
                .containsExactly("SELECT id FROM t");
        assertThat(counting.statements()).isEqualTo(2);
    }

    @Test
    void countingOnlyKeepsNoRuns() {
        CountingDataSource counting = CountingDataSource.counting(h2);

        assertThatThrownBy(counting::executed)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CountingDataSource.recording");
    }
}
