package io.wheeltimer.spring.annotated;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timeout;
import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What the tests of the annotations share: a record of the calls that ran, the context's beans
 * they drive, startup-failure messages, and the runner and user beans of the {@code @WheelTimeout}
 * call tests.
 */
final class WheelTimeoutFixtures {

    private WheelTimeoutFixtures() {}

    /** The worker thread's name in {@link #wheelTimeoutRunner()}. */
    static final String WORKER = "test-wheel";

    static final Duration THIRTY_SECONDS = Duration.ofSeconds(30);

    /**
     * The timer's auto-configuration with placeholders, a {@link ManualTicker} (100 ms ticks) and a
     * {@link Calls} bean: what the tests of {@code @WheelTimeout} calls run on.
     */
    static ApplicationContextRunner wheelTimeoutRunner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        PropertyPlaceholderAutoConfiguration.class, WheelTimerAutoConfiguration.class))
                .withPropertyValues("wheel-timer.thread-name=" + WORKER)
                .withBean(ManualTicker.class, ManualTicker::new)
                .withBean(Calls.class, Calls::new);
    }

    /** The context's one {@link HashedWheelTimer}. */
    static HashedWheelTimer timer(AssertableApplicationContext context) {
        return context.getBean(HashedWheelTimer.class);
    }

    /** One run of an annotated method: which, with what arguments, on which thread. */
    record Call(String method, List<Object> args, String thread) {}

    /** The runs of annotated methods, in order; a bean, so that the user beans can record into it. */
    static final class Calls {
        private final List<Call> list = new CopyOnWriteArrayList<>();

        void record(String method, Object... args) {
            list.add(new Call(method, List.of(args), Thread.currentThread().getName()));
        }

        List<Call> all() {
            return List.copyOf(list);
        }

        List<String> methods() {
            return list.stream().map(Call::method).toList();
        }
    }

    /** The context's {@link Calls} bean. */
    static Calls calls(AssertableApplicationContext context) {
        return context.getBean(Calls.class);
    }

    /** The context's {@link ManualTicker} bean, which drives its timers' time. */
    static ManualTicker ticker(AssertableApplicationContext context) {
        return context.getBean(ManualTicker.class);
    }

    /** The context failed to start, and the messages of the failure contain every fragment. */
    static void assertStartupFailsNaming(AssertableApplicationContext context, String... fragments) {
        assertThat(context).hasFailed();
        assertThat(messages(context.getStartupFailure())).contains(fragments);
    }

    /**
     * An annotated method that cannot work: its bean, the method as the messages name it after the
     * class ({@code ".get()"}), the properties the mistake needs, and what the startup failure says.
     */
    record Mistake(String name, Class<?> bean, String method, List<String> properties, List<String> says) {

        Mistake(String name, Class<?> bean, String method, String... says) {
            this(name, bean, method, List.of(), List.of(says));
        }

        /** The same mistake, in an application with {@code properties}. */
        Mistake given(String... properties) {
            return new Mistake(name, bean, method, List.of(properties), says);
        }

        /** Asserts that an application of {@code runner} with the bean fails to start, naming the method and why. */
        void assertFailsStartup(ApplicationContextRunner runner) {
            String[] fragments = Stream.concat(Stream.of(bean.getName() + method), says.stream())
                    .toArray(String[]::new);
            runner.withBean(bean)
                    .withPropertyValues(properties.toArray(String[]::new))
                    .run(context -> assertStartupFailsNaming(context, fragments));
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** The messages of a failure and of all its causes, one a line. */
    static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t.getClass().getName())
                    .append(": ")
                    .append(t.getMessage())
                    .append('\n');
        }
        return all.toString();
    }

    // --- user beans ---------------------------------------------------------------------------

    /** No interface: proxied by CGLIB. */
    static class Reminders {
        final Calls calls;
        final CompletableFuture<String> own = new CompletableFuture<>();

        Reminders(Calls calls) {
            this.calls = calls;
        }

        @WheelTimeout("30s")
        public void remind(String who, int times) {
            calls.record("remind", who, times);
        }

        @WheelTimeout("30s")
        public Timeout remindLater(String who) {
            calls.record("remindLater", who);
            return null;
        }

        @WheelTimeout("30s")
        public CompletableFuture<String> greet(String who) {
            calls.record("greet", who);
            return CompletableFuture.completedFuture("hello " + who);
        }

        @WheelTimeout("30s")
        public CompletionStage<String> greetStage(String who) {
            calls.record("greetStage", who);
            return CompletableFuture.completedFuture("hello " + who);
        }

        @WheelTimeout("30s")
        public Future<String> greetFuture(String who) {
            calls.record("greetFuture", who);
            FutureTask<String> task = new FutureTask<>(() -> "hello " + who);
            task.run();
            return task;
        }

        /** Not annotated: the proxy passes it straight to the target (a field read would not). */
        public CompletableFuture<String> own() {
            return own;
        }

        @WheelTimeout("30s")
        public CompletableFuture<String> ownFuture() {
            calls.record("ownFuture");
            return own;
        }

        @WheelTimeout("30s")
        public void fail(String why) {
            calls.record("fail", why);
            throw new IllegalStateException(why);
        }

        @WheelTimeout("30s")
        public Timeout failWithHandle(String why) {
            calls.record("failWithHandle", why);
            throw new IllegalStateException(why);
        }

        @WheelTimeout("30s")
        public void failChecked(String why) throws java.io.IOException {
            calls.record("failChecked", why);
            throw new java.io.IOException(why);
        }

        @WheelTimeout("30s")
        public CompletableFuture<String> failFuture(String why) {
            calls.record("failFuture", why);
            throw new IllegalStateException(why);
        }

        @WheelTimeout("30s")
        public CompletableFuture<String> failFutureChecked(String why) throws java.io.IOException {
            calls.record("failFutureChecked", why);
            throw new java.io.IOException(why);
        }

        @WheelTimeout("30s")
        public CompletableFuture<String> failedFuture(String why) {
            calls.record("failedFuture", why);
            return CompletableFuture.failedFuture(new IllegalStateException(why));
        }

        @WheelTimeout("30s")
        public Future<String> failedPlainFuture(String why) {
            calls.record("failedPlainFuture", why);
            FutureTask<String> task = new FutureTask<>(() -> {
                throw new IllegalStateException(why);
            });
            task.run();
            return task;
        }

        @WheelTimeout("30s")
        public CompletableFuture<String> failFutureWithError(String why) {
            calls.record("failFutureWithError", why);
            throw new AssertionError(why);
        }
    }

    /** The second timer as the Spring Boot guide declares it: from the builder bean, not a default candidate. */
    @Configuration(proxyBeanMethods = false)
    static class AuditTimer {
        @Bean(defaultCandidate = false)
        HashedWheelTimer auditTimer(HashedWheelTimer.Builder builder) {
            return builder.name("audit").build();
        }
    }

    /** One method per delay form. */
    static class Delays {
        final Calls calls;

        Delays(Calls calls) {
            this.calls = calls;
        }

        @WheelTimeout(delay = "30s")
        public void simple() {
            calls.record("simple");
        }

        @WheelTimeout(delay = "PT30S")
        public void iso() {
            calls.record("iso");
        }

        @WheelTimeout(delay = "${my.other-delay:2s}")
        public void placeholderDefault() {
            calls.record("placeholderDefault");
        }

        @WheelTimeout(delay = "${my.minutes:1}", timeUnit = TimeUnit.MINUTES)
        public void placeholderMinutes() {
            calls.record("placeholderMinutes");
        }

        @WheelTimeout(delay = "1500")
        public void plainMillis() {
            calls.record("plainMillis");
        }

        @WheelTimeout(delay = "1500", timeUnit = TimeUnit.SECONDS)
        public void plainSeconds() {
            calls.record("plainSeconds");
        }

        @WheelTimeout("5s")
        public void valueAlias() {
            calls.record("valueAlias");
        }

        @WheelTimeout("0")
        public void zero() {
            calls.record("zero");
        }

        @WheelTimeout("1s")
        public void batch(String[] names, List<Integer> ids, int[] codes) {
            calls.record("batch");
        }
    }
}
