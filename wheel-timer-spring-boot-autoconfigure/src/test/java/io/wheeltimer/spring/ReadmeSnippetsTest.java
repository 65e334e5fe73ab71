package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timeout;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testing.ManualTicker;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
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
 * core, the auto-configuration, Spring and JUnit. A snippet that is a JUnit test is run, and the
 * "More timers" configuration is started with the {@code @WheelTimeout} snippet to see where its
 * calls go.
 */
class ReadmeSnippetsTest {

    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL);
    private static final Pattern TOP_LEVEL_TYPE = Pattern.compile(
            "^(?:public\\s+|abstract\\s+|final\\s+)*(?:class|interface|record|enum|@interface)\\s+(\\w+)",
            Pattern.MULTILINE);

    @TempDir
    static Path dir;

    private static List<String> snippets;

    @BeforeAll
    static void readTheSnippets() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        snippets = new ArrayList<>();
        Matcher block = JAVA_BLOCK.matcher(readme);
        while (block.find()) {
            snippets.add(block.group(1));
        }
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
        String snippet = only("ManualTicker ticker = new ManualTicker()");
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
        String timers = only("defaultCandidate = false");
        String deadlines = only("@WheelTimeout(delay");
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

    private static String only(String marker) {
        List<String> matching =
                snippets.stream().filter(s -> s.contains(marker)).toList();
        assertThat(matching).as("README snippets containing %s", marker).hasSize(1);
        return matching.get(0);
    }

    private static List<String> typeNames(String source) {
        List<String> names = new ArrayList<>();
        Matcher type = TOP_LEVEL_TYPE.matcher(source);
        while (type.find()) {
            names.add(type.group(1));
        }
        return names;
    }

    /** Compiles {@code source} as one file named after its public type (or its first type); loads the classes. */
    private static URLClassLoader compile(String source, String name) throws Exception {
        List<String> types = typeNames(source);
        assertThat(types).as("top-level types of the snippet:%n%s", source).isNotEmpty();
        Matcher publicType = Pattern.compile(
                        "^public\\s+(?:abstract\\s+|final\\s+)*(?:class|interface|record|enum)\\s+(\\w+)",
                        Pattern.MULTILINE)
                .matcher(source);
        String fileName = (publicType.find() ? publicType.group(1) : types.get(0)) + ".java";
        Path out = Files.createDirectories(dir.resolve(name + "-" + System.nanoTime()));
        Path file = out.resolve(fileName);
        // Imports gathered from several snippets must come before the types: move them up.
        Files.writeString(file, importsFirst(source));

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = javac.run(
                null,
                null,
                errors,
                "--release",
                "17",
                "-proc:none",
                "-cp",
                System.getProperty("java.class.path"),
                "-d",
                out.toString(),
                file.toString());
        assertThat(status)
                .as("javac of the README snippet:%n%s%n%s", source, errors.toString(StandardCharsets.UTF_8))
                .isZero();
        return new URLClassLoader(new URL[] {out.toUri().toURL()}, ReadmeSnippetsTest.class.getClassLoader());
    }

    private static String importsFirst(String source) {
        StringBuilder imports = new StringBuilder();
        StringBuilder rest = new StringBuilder();
        Map<Boolean, List<String>> lines =
                source.lines().collect(java.util.stream.Collectors.partitioningBy(line -> line.startsWith("import ")));
        lines.get(true).stream().distinct().forEach(line -> imports.append(line).append('\n'));
        lines.get(false).forEach(line -> rest.append(line).append('\n'));
        return imports + "\n" + rest;
    }
}
