package io.wheeltimer.spring.autoconfigure.durable;

import static io.wheeltimer.spring.autoconfigure.durable.DurableApps.awaitHolding;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.DurableTimer;
import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@link DurableTimerTask @DurableTimerTask} methods: found on the user's class behind proxies,
 * called through the proxy, and checked at startup, where a mistake fails naming the methods.
 */
class DurableTimerTaskTest {

    /** What every handler of these tests saw. */
    static final Queue<String> RUNS = new ConcurrentLinkedQueue<>();

    // --- valid handlers ----------------------------------------------------------------------

    /** A service that schedules its own deadlines and handles them; proxied for @Transactional. */
    @Transactional
    public static class Orders {
        private final DurableTimer timer;

        public Orders(DurableTimer timer) {
            this.timer = timer;
        }

        public void place(String orderId) {
            timer.schedule("order-payment", orderId, Duration.ofMillis(20));
        }

        @DurableTimerTask("order-payment")
        public void cancelIfUnpaid(String orderId) {
            RUNS.add("order-payment:" + orderId + ":tx="
                    + TransactionSynchronizationManager.isActualTransactionActive());
        }
    }

    public interface Reminders {
        @DurableTimerTask("reminder")
        void remind(DurableTimeout timeout);
    }

    /** Declared by its interface, so its proxy is a JDK proxy that implements only the interface. */
    @Transactional
    public static class EmailReminders implements Reminders {
        @Override
        public void remind(DurableTimeout timeout) {
            RUNS.add("reminder:" + timeout.key() + ":" + timeout.deadline().getNano() % 1_000_000);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(proxyTargetClass = false)
    static class Valid {
        @Bean
        Orders orders(DurableTimer timer) {
            return new Orders(timer);
        }

        @Bean
        Reminders reminders() {
            return new EmailReminders();
        }

        @Bean
        @Lazy
        LazyHandler lazyHandler() {
            return new LazyHandler();
        }
    }

    public static class LazyHandler {
        public LazyHandler() {
            RUNS.add("lazy created");
        }

        @DurableTimerTask("lazy")
        public void run(String key) {
            RUNS.add("lazy:" + key);
        }
    }

    @Test
    void handlersAreFoundBehindProxiesAndRunThroughThem() {
        RUNS.clear();
        DurableApps.runner(Database.H2).withUserConfiguration(Valid.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(AopUtils.isCglibProxy(context.getBean(Orders.class))).isTrue();
            assertThat(AopUtils.isJdkDynamicProxy(context.getBean(Reminders.class)))
                    .isTrue();
            JdbcDurableTimer timer = context.getBean(JdbcDurableTimer.class);
            assertThat(timer.tasks()).containsExactlyInAnyOrder("order-payment", "reminder", "lazy");
            assertThat(RUNS)
                    .as("a lazy handler bean is created when its timeout fires")
                    .isEmpty();

            awaitHolding(timer);
            context.getBean(Orders.class).place("o-1");
            timer.schedule("reminder", "r-1", Duration.ZERO);
            timer.schedule("lazy", "l-1", Duration.ZERO);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(RUNS)
                            .containsExactlyInAnyOrder(
                                    "order-payment:o-1:tx=true", "reminder:r-1:0", "lazy created", "lazy:l-1"));
        });
    }

    // --- mistakes ----------------------------------------------------------------------------

    static class ThreeParameters {
        @DurableTimerTask("a")
        public void handle(String key, String data, String other) {}
    }

    static class TimeoutAndData {
        @DurableTimerTask("a")
        public void handle(DurableTimeout timeout, String data) {}
    }

    static class WrongParameter {
        @DurableTimerTask("a")
        public void handle(long key) {}
    }

    static class NoParameter {
        @DurableTimerTask("a")
        public void handle() {}
    }

    static class ReturnsValue {
        @DurableTimerTask("a")
        public String handle(String key) {
            return key;
        }
    }

    static class BlankName {
        @DurableTimerTask("  ")
        public void handle(String key) {}
    }

    static class LongName {
        @DurableTimerTask(
                "a123456789a123456789a123456789a123456789a123456789a123456789a123456789a123456789a123456789a123456789"
                        + "a123456789a123456789a123456789a123456789a123456789a123456789a123456789a123456789a123456789a123456789x")
        public void handle(String key) {}
    }

    static class FirstPayment {
        @DurableTimerTask("payment")
        public void first(String key) {}
    }

    static class SecondPayment {
        @DurableTimerTask("payment")
        public void second(DurableTimeout timeout) {}
    }

    static class TwoInOne {
        @DurableTimerTask("payment")
        public void one(String key) {}

        @DurableTimerTask("payment")
        public void other(String key) {}
    }

    @Test
    void threeParametersFailStartup() {
        assertFailsNaming(
                ThreeParameters.class,
                name(ThreeParameters.class, "handle(String, String, String)"),
                "must take (String key), (DurableTimeout timeout), or (String key, T data)");
    }

    @Test
    void dataAfterAnythingButTheKeyFailsStartup() {
        assertFailsNaming(
                TimeoutAndData.class,
                name(TimeoutAndData.class, "handle(DurableTimeout, String)"),
                "must take (String key), (DurableTimeout timeout), or (String key, T data)");
    }

    @Test
    void anotherParameterTypeFailsStartup() {
        assertFailsNaming(
                WrongParameter.class,
                name(WrongParameter.class, "handle(long)"),
                "must take (String key), (DurableTimeout timeout), or (String key, T data)");
    }

    @Test
    void noParameterFailsStartup() {
        assertFailsNaming(NoParameter.class, name(NoParameter.class, "handle()"), "must take (String key)");
    }

    @Test
    void aReturnValueFailsStartup() {
        assertFailsNaming(
                ReturnsValue.class,
                name(ReturnsValue.class, "handle(String)"),
                "returns java.lang.String",
                "must return void");
    }

    @Test
    void aBlankTaskNameFailsStartup() {
        assertFailsNaming(BlankName.class, name(BlankName.class, "handle(String)"), "blank task name");
    }

    @Test
    void aTaskNameLongerThanTheColumnFailsStartup() {
        assertFailsNaming(LongName.class, name(LongName.class, "handle(String)"), "201 characters", "at most 200");
    }

    @Test
    void twoMethodsOfTwoBeansForOneTaskFailStartup() {
        DurableApps.runner(Database.H2)
                .withBean(FirstPayment.class)
                .withBean(SecondPayment.class)
                .run(context -> assertFailure(
                        context,
                        "Two @DurableTimerTask methods handle task 'payment'",
                        name(FirstPayment.class, "first(String)"),
                        name(SecondPayment.class, "second(DurableTimeout)")));
    }

    @Test
    void twoMethodsOfOneBeanForOneTaskFailStartup() {
        assertFailsNaming(
                TwoInOne.class,
                "Two @DurableTimerTask methods handle task 'payment'",
                name(TwoInOne.class, "one(String)"),
                name(TwoInOne.class, "other(String)"));
    }

    /** A bean that needs the timer, defined before a handler whose definition hides its class. */
    @Configuration(proxyBeanMethods = false)
    static class HiddenHandler {
        @Bean
        Orders orders(DurableTimer timer) {
            return new Orders(timer);
        }

        @Bean
        Object hidden() {
            return new LazyHandler();
        }
    }

    @Test
    void aHandlerTheTimerCouldNotKnowInTimeFailsStartupSayingWhy() {
        DurableApps.runner(Database.H2)
                .withUserConfiguration(HiddenHandler.class)
                .run(context -> assertFailure(
                        context,
                        name(LazyHandler.class, "run(String)"),
                        "bean 'hidden'",
                        "does not declare its class"));
    }

    private static String name(Class<?> type, String method) {
        return type.getName() + "." + method;
    }

    private static void assertFailsNaming(Class<?> bean, String... expected) {
        DurableApps.runner(Database.H2).withBean(bean).run(context -> assertFailure(context, expected));
    }

    private static void assertFailure(AssertableApplicationContext context, String... expected) {
        assertThat(context).hasFailed();
        List<String> messages = new ArrayList<>();
        for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
            messages.add(t.getMessage());
        }
        assertThat(String.join("\n", messages)).contains(expected);
    }
}
