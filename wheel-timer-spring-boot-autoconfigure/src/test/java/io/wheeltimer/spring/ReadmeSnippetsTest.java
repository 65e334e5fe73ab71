package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timeout;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testing.ManualTicker;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Keeps the README's Java snippets true: every {@code ```java} block is compiled as written (its
 * own imports, no declarations assumed) against this module's test class path, which holds the
 * core, the auto-configuration, the durable timeouts, the Netty view, Spring (web sockets and
 * messaging included), Lettuce, AsyncHttpClient and JUnit. A snippet that is a JUnit test is run,
 * and the "More timers" configuration is started with the {@code @WheelTimeout} snippet to see where
 * its calls go; {@link ReadmeDurableSnippetsTest} runs the durable timeouts' one.
 */
class ReadmeSnippetsTest {

    @TempDir
    static Path dir;

    private static List<String> snippets;

    @BeforeAll
    static void readTheSnippets() throws Exception {
        snippets = ReadmeSnippets.all();
    }

    @Test
    void theReadmeHasItsSnippets() {
        assertThat(snippets)
                .as("the README's java blocks")
                .hasSizeGreaterThanOrEqualTo(6)
                .anySatisfy(s -> assertThat(s).contains("@WheelTimeout"))
                .anySatisfy(s -> assertThat(s).contains("@WheelTimeLimit"))
                .anySatisfy(s -> assertThat(s).contains("ManualTicker"))
                .anySatisfy(s -> assertThat(s).contains("defaultCandidate = false"));
    }

    @TestFactory
    Stream<DynamicTest> everySnippetCompilesAsWritten() {
        return snippets.stream()
                .map(snippet -> DynamicTest.dynamicTest(
                        "snippet declaring " + typeNames(snippet), () -> compile(snippet, "compile")));
    }

    /** The snippet of "Tests without sleeping" is a JUnit test: it passes. */
    @Test
    void theManualTickerSnippetPasses() throws Exception {
        String snippet = ReadmeSnippets.only(snippets, "ManualTicker ticker = new ManualTicker()");
        try (URLClassLoader loader = compile(snippet, "manual-ticker")) {
            Class<?> test = loader.loadClass(typeNames(snippet).get(0));
            int run = 0;
            for (Method method : test.getDeclaredMethods()) {
                if (method.isAnnotationPresent(org.junit.jupiter.api.Test.class)) {
                    method.setAccessible(true);
                    var constructor = test.getDeclaredConstructor();
                    constructor.setAccessible(true);
                    method.invoke(constructor.newInstance());
                    run++;
                }
            }
            assertThat(run).as("test methods run").isOne();
        }
    }

    /**
     * The "More timers" configuration beside the {@code @WheelTimeout} snippet: the application
     * starts, the call goes to the auto-configured {@code wheelTimer}, and {@code auditTimer}
     * stays for the methods that name it.
     */
    @Test
    void theMoreTimersConfigurationLeavesTheWheelTimeoutSnippetOnWheelTimer() throws Exception {
        String timers = ReadmeSnippets.only(snippets, "defaultCandidate = false");
        String deadlines = ReadmeSnippets.only(snippets, "@WheelTimeout(delay");
        try (URLClassLoader loader = compile(timers + "\n" + deadlines, "more-timers")) {
            Class<?> configuration = loader.loadClass("Timers");
            Class<?> paymentDeadlines = loader.loadClass("PaymentDeadlines");
            Class<?> orderStore = loader.loadClass("OrderStore");
            List<String> cancelled = new CopyOnWriteArrayList<>();
            Object store = Proxy.newProxyInstance(loader, new Class<?>[] {orderStore}, (proxy, method, args) -> {
                if (method.getName().equals("cancelIfStillPending")) {
                    cancelled.add((String) args[0]);
                }
                return null;
            });
            new ApplicationContextRunner()
                    .withClassLoader(loader)
                    .withConfiguration(AutoConfigurations.of(
                            PropertyPlaceholderAutoConfiguration.class, WheelTimerAutoConfiguration.class))
                    .withPropertyValues("wheel-timer.annotation.executor=")
                    .withBean(ManualTicker.class, ManualTicker::new)
                    .withBean("orderStore", asType(orderStore), () -> store)
                    .withUserConfiguration(configuration)
                    .withBean("paymentDeadlines", paymentDeadlines)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        HashedWheelTimer wheelTimer = context.getBean("wheelTimer", HashedWheelTimer.class);
                        HashedWheelTimer auditTimer = context.getBean("auditTimer", HashedWheelTimer.class);
                        assertThat(auditTimer.name()).isEqualTo("audit");

                        Object bean = context.getBean("paymentDeadlines");
                        Method cancelIfUnpaid = bean.getClass().getMethod("cancelIfUnpaid", String.class);
                        cancelIfUnpaid.setAccessible(true);
                        Timeout timeout = (Timeout) cancelIfUnpaid.invoke(bean, "order-1");

                        assertThat(timeout.timer()).isSameAs(wheelTimer);
                        assertThat(auditTimer.pendingTimeouts()).isZero();
                        context.getBean(ManualTicker.class).advance(Duration.ofMinutes(30));
                        assertThat(cancelled).containsExactly("order-1");
                    });
        }
    }

    @SuppressWarnings("unchecked")
    private static Class<Object> asType(Class<?> type) {
        return (Class<Object>) type;
    }

    private static List<String> typeNames(String source) {
        return ReadmeSnippets.typeNames(source);
    }

    private static URLClassLoader compile(String source, String name) throws Exception {
        return ReadmeSnippets.compile(source, dir, name, ReadmeSnippetsTest.class.getClassLoader());
    }
}
