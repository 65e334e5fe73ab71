package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import io.wheeltimer.HashedWheelTimer;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/** Bad settings fail with the setting's name, the value given and what is allowed. No database needed. */
class JdbcDurableTimerBuilderTest {

    private final DataSource dataSource = new DriverManagerDataSource("jdbc:h2:mem:unused");
    private final DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(dataSource);
    private final HashedWheelTimer wheel = new HashedWheelTimer();

    @AfterEach
    void stopWheel() {
        wheel.stop();
    }

    private JdbcDurableTimer.Builder builder() {
        return JdbcDurableTimer.builder(dataSource, transactionManager, wheel);
    }

    @Test
    void theDefaultsAreThoseOfTheProperties() {
        JdbcDurableTimer durable = builder().handler("t", timeout -> {}).build();

        assertThat(durable.tableName()).isEqualTo("wheel_timer_timeouts");
        assertThat(durable.tasks()).containsExactly("t");
        assertThat(durable.instanceId()).matches(".+-[0-9a-f]{8}");
        assertThat(durable.isRunning()).isFalse();
        assertThat(durable.held()).isZero();
        assertThat(durable.lastSuccessfulPoll()).isEmpty();
        assertThat(durable.failedPollsInARow()).isZero();
    }

    @Test
    void twoDefaultInstanceIdsDiffer() {
        assertThat(builder().build().instanceId())
                .isNotEqualTo(builder().build().instanceId());
    }

    @Test
    void nullsNameTheArgument() {
        assertThatNullPointerException()
                .isThrownBy(() -> JdbcDurableTimer.builder(null, transactionManager, wheel))
                .withMessageContaining("dataSource");
        assertThatNullPointerException()
                .isThrownBy(() -> JdbcDurableTimer.builder(dataSource, null, wheel))
                .withMessageContaining("transactionManager");
        assertThatNullPointerException()
                .isThrownBy(() -> JdbcDurableTimer.builder(dataSource, transactionManager, null))
                .withMessageContaining("timer");
        assertThatNullPointerException()
                .isThrownBy(() -> builder().pollInterval(null))
                .withMessageContaining("pollInterval");
        assertThatNullPointerException()
                .isThrownBy(() -> builder().lookahead(null))
                .withMessageContaining("lookahead");
        assertThatNullPointerException().isThrownBy(() -> builder().lease(null)).withMessageContaining("lease");
        assertThatNullPointerException()
                .isThrownBy(() -> builder().retryDelay(null))
                .withMessageContaining("retryDelay");
        assertThatNullPointerException()
                .isThrownBy(() -> builder().tableName(null))
                .withMessageContaining("tableName");
        assertThatNullPointerException()
                .isThrownBy(() -> builder().instanceId(null))
                .withMessageContaining("instanceId");
        assertThatNullPointerException()
                .isThrownBy(() -> builder().executor(null))
                .withMessageContaining("executor");
        assertThatNullPointerException().isThrownBy(() -> builder().clock(null)).withMessageContaining("clock");
        assertThatNullPointerException()
                .isThrownBy(() -> builder().listener(null))
                .withMessageContaining("listener");
        assertThatNullPointerException()
                .isThrownBy(() -> builder().handler(null, t -> {}))
                .withMessageContaining("task");
        assertThatNullPointerException()
                .isThrownBy(() -> builder().handler("t", null))
                .withMessageContaining("handler");
    }

    @Test
    void durationsMustBePositive() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().pollInterval(Duration.ZERO))
                .withMessage("pollInterval is 0s; it must be positive, at least 1ms");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().lookahead(Duration.ofMillis(-5)))
                .withMessage("lookahead is -5ms; it must be positive, at least 1ms");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().lease(Duration.ofNanos(10)))
                .withMessage("lease is PT0.00000001S; it must be positive, at least 1ms");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().retryDelay(Duration.ZERO))
                .withMessage("retryDelay is 0s; it must be positive, at least 1ms");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().retryMaxDelay(Duration.ofMillis(-1)))
                .withMessage("retryMaxDelay is -1ms; it must be positive, at least 1ms");
    }

    @Test
    void theLookaheadMustCoverAPollInterval() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder()
                        .pollInterval(Duration.ofSeconds(2))
                        .lookahead(Duration.ofMillis(1500))
                        .build())
                .withMessage("lookahead is 1500ms; it must be at least pollInterval (2s)");
        // The default lookahead (10 s) against a longer poll interval.
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder()
                        .pollInterval(Duration.ofSeconds(11))
                        .lease(Duration.ofMinutes(1))
                        .build())
                .withMessage("lookahead is 10s; it must be at least pollInterval (11s)");
        builder()
                .pollInterval(Duration.ofSeconds(2))
                .lookahead(Duration.ofSeconds(2))
                .build();
    }

    @Test
    void theLeaseMustOutlastTwoPollIntervals() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder()
                        .pollInterval(Duration.ofSeconds(1))
                        .lease(Duration.ofSeconds(2))
                        .build())
                .withMessage("lease is 2s; it must be more than twice pollInterval (1s), so more than 2s");
        builder()
                .pollInterval(Duration.ofSeconds(1))
                .lease(Duration.ofMillis(2001))
                .build();
    }

    @Test
    void countsMustBeAtLeastOne() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().batchSize(0))
                .withMessage("batchSize is 0; it must be at least 1");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().maxAttempts(-1))
                .withMessage("maxAttempts is -1; it must be at least 1");
        builder().batchSize(1).maxAttempts(1).build();
    }

    @Test
    void theTableNameMustBeAPlainIdentifier() {
        for (String bad :
                new String[] {"", "1table", "my-table", "public.timeouts", "t; DROP TABLE x", "t".repeat(51)}) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder().tableName(bad))
                    .withMessageStartingWith("tableName is \"" + bad + "\"")
                    .withMessageContaining("plain SQL identifier")
                    .withMessageContaining("at most 50 characters");
        }
        assertThat(builder().tableName("_Deadlines_2").build().tableName()).isEqualTo("_Deadlines_2");
    }

    @Test
    void instanceIdsAndTaskNamesAreOneToTwoHundredCharacters() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().instanceId(" "))
                .withMessageStartingWith("instanceId is")
                .withMessageContaining("1 to 200 characters");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().handler("x".repeat(201), t -> {}))
                .withMessageStartingWith("task is")
                .withMessageContaining("1 to 200 characters");
    }

    @Test
    void aTaskHasOneHandler() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().handler("t", timeout -> {}).handler("t", timeout -> {}))
                .withMessage("task \"t\" has a handler already; each task has one handler");
    }

    @Test
    void aDurationBeyondAYearIsRefusedBeforeItCanOverflowADeadline() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().lookahead(Duration.ofDays(366)))
                .isInstanceOf(InvalidSettingException.class)
                .withMessage("lookahead is 31622400s; it must be at most 365 days (8760h)");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().lease(Duration.ofSeconds(Long.MAX_VALUE)))
                .withMessageContaining("at most 365 days");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().retryDelay(Duration.ofDays(400)))
                .withMessageContaining("at most 365 days");
        assertThat(builder().lookahead(Duration.ofDays(365)).lease(Duration.ofDays(365)))
                .isNotNull();
    }

    @Test
    void aTransactionManagerOfAnotherDataSourceFailsTheBuildNamingBoth() {
        DataSource other = new DriverManagerDataSource("jdbc:h2:mem:other");

        assertThatIllegalArgumentException()
                .isThrownBy(() -> JdbcDurableTimer.builder(dataSource, new DataSourceTransactionManager(other), wheel)
                        .build())
                .withMessageContaining("manages DataSource " + other)
                .withMessageContaining("not the durable timer's DataSource " + dataSource);
    }

    @Test
    void theOneDataSourceIsRecognisedBehindSpringsProxies() {
        DataSource proxied = new TransactionAwareDataSourceProxy(new LazyConnectionDataSourceProxy(dataSource));

        assertThat(JdbcDurableTimer.builder(proxied, transactionManager, wheel).build())
                .isNotNull();
        assertThat(JdbcDurableTimer.builder(dataSource, new DataSourceTransactionManager(proxied), wheel)
                        .build())
                .isNotNull();
    }

    @Test
    void aJpaStyleManagerIsCheckedThroughItsDataSource() {
        DataSource other = new DriverManagerDataSource("jdbc:h2:mem:other");

        assertThatIllegalArgumentException()
                .isThrownBy(() -> JdbcDurableTimer.builder(dataSource, new ManagerWithADataSource(other), wheel)
                        .build())
                .withMessageContaining("manages DataSource " + other);
        assertThat(JdbcDurableTimer.builder(dataSource, new ManagerWithADataSource(dataSource), wheel)
                        .build())
                .isNotNull();
    }

    /** Shaped as JPA's and Hibernate's managers are: a {@code getDataSource()} beside the transactions. */
    static final class ManagerWithADataSource extends AbstractPlatformTransactionManager {
        private final DataSource dataSource;

        ManagerWithADataSource(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        public DataSource getDataSource() {
            return dataSource;
        }

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {}

        @Override
        protected void doCommit(DefaultTransactionStatus status) {}

        @Override
        protected void doRollback(DefaultTransactionStatus status) {}
    }
}
