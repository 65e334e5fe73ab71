package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The timer's transactions: a caller's transaction is joined (its rollback undoes the timer's
 * statements too); outside one, a single statement commits alone in auto-commit mode, and several
 * statements get a transaction of the timer's own; what runs after a commit runs only once the
 * commit happened, never on a rollback. On H2: the rules are about this class, not about SQL.
 */
class TransactionsTest {

    private static final AtomicInteger TABLES = new AtomicInteger();

    private final DataSource dataSource = TestDatabase.H2.dataSource();
    private final DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource);
    private final TransactionTemplate callers = new TransactionTemplate(manager);
    private final JdbcTemplate jdbc = new JdbcTemplate(dataSource);
    private final Transactions transactions = new Transactions(manager, dataSource, "test");
    private final List<String> hooks = new ArrayList<>();
    private String table;

    @BeforeEach
    void table() {
        table = "tx_" + TABLES.incrementAndGet();
        jdbc.execute("CREATE TABLE " + table + " (v INT)");
    }

    @AfterEach
    void drop() {
        jdbc.execute("DROP TABLE " + table);
    }

    private int insert(int value) {
        return jdbc.update("INSERT INTO " + table + " (v) VALUES (?)", value);
    }

    /** Whether the connection the timer's statements run on now is in auto-commit mode. */
    private boolean autoCommit() {
        Boolean on = jdbc.execute((ConnectionCallback<Boolean>) c -> c.getAutoCommit());
        return Boolean.TRUE.equals(on);
    }

    private int rows() {
        Integer count = jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class);
        return count == null ? 0 : count;
    }

    @Nested
    class TheCallersTransactionIsJoined {

        @Test
        void aStatementJoinsTheCallersTransactionAndRollsBackWithIt() {
            callers.executeWithoutResult(status -> {
                transactions.joinedOrAutoCommit(() -> insert(1));
                assertThat(autoCommit()).as("in the caller's transaction").isFalse();
                status.setRollbackOnly();
            });

            assertThat(rows()).isZero();
        }

        @Test
        void severalStatementsJoinTheCallersTransactionAndRollBackWithIt() {
            callers.executeWithoutResult(status -> {
                transactions.joinedOrOwn(s -> insert(1) + insert(2));
                status.setRollbackOnly();
            });

            assertThat(rows()).isZero();
        }

        @Test
        void theHookRunsAfterTheCallersCommitNotBefore() {
            callers.executeWithoutResult(status -> {
                transactions.joinedOrAutoCommitThenOnCommit(() -> insert(1), inserted -> hooks.add("one"));
                transactions.joinedOrOwnThenOnCommit(() -> insert(2), inserted -> hooks.add("two"));
                assertThat(hooks).as("before the commit").isEmpty();
            });

            assertThat(hooks).containsExactly("one", "two");
            assertThat(rows()).isEqualTo(2);
        }

        @Test
        void theHookNeverRunsWhenTheCallerRollsBack() {
            callers.executeWithoutResult(status -> {
                transactions.joinedOrAutoCommitThenOnCommit(() -> insert(1), inserted -> hooks.add("one"));
                transactions.joinedOrOwnThenOnCommit(() -> insert(2), inserted -> hooks.add("two"));
                status.setRollbackOnly();
            });

            assertThat(hooks).isEmpty();
            assertThat(rows()).isZero();
        }
    }

    @Nested
    class OutsideAnyTransaction {

        @Test
        void oneStatementRunsAloneInAutoCommitModeAndIsCommittedWhenItReturns() {
            boolean[] autoCommitted = new boolean[1];
            int inserted = transactions.joinedOrAutoCommitThenOnCommit(
                    () -> {
                        autoCommitted[0] = autoCommit();
                        return insert(1);
                    },
                    result -> hooks.add("committed " + result + ", rows " + rows()));

            assertThat(inserted).isEqualTo(1);
            assertThat(autoCommitted[0]).isTrue();
            assertThat(hooks).as("run before it returned, the row committed").containsExactly("committed 1, rows 1");
        }

        @Test
        void severalStatementsGetATransactionOfTheTimersOwnNeverAutoCommit() {
            boolean[] autoCommitted = {true};

            transactions.joinedOrOwnNoResult(() -> {
                autoCommitted[0] = autoCommit();
                insert(1);
                insert(2);
            });

            assertThat(autoCommitted[0]).isFalse();
            assertThat(rows()).isEqualTo(2);
        }

        @Test
        void aFailureRollsBackEveryStatementOfTheTimersOwnTransactionAndRunsNoHook() {
            assertThatThrownBy(() -> transactions.joinedOrOwnThenOnCommit(
                            () -> {
                                insert(1);
                                throw new IllegalStateException("second statement failed");
                            },
                            result -> hooks.add("committed")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("second statement failed");

            assertThat(rows()).isZero();
            assertThat(hooks).isEmpty();
        }

        @Test
        void theHookOfTheTimersOwnTransactionRunsOnceItCommitted() {
            transactions.joinedOrOwnThenOnCommit(() -> insert(1), result -> hooks.add("committed, rows " + rows()));

            assertThat(hooks).containsExactly("committed, rows 1");
        }

        @Test
        void aFailedStatementAloneRunsNoHook() {
            assertThatThrownBy(() -> transactions.joinedOrAutoCommitThenOnCommit(
                            () -> jdbc.update("INSERT INTO no_such_table (v) VALUES (1)"),
                            result -> hooks.add("committed")))
                    .isInstanceOf(org.springframework.dao.DataAccessException.class);

            assertThat(hooks).isEmpty();
        }
    }
}
