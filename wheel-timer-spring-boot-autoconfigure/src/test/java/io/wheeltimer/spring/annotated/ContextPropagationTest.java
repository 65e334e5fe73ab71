package io.wheeltimer.spring.annotated;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Context: the caller's MDC and context-propagation thread locals are captured at
 * the call, restored around the deferred run on a pooled thread, and cleared after it.
 */
class ContextPropagationTest {

    /** The application's own thread local, registered with context-propagation. */
    static final ThreadLocal<String> TENANT = new ThreadLocal<>();

    private static final ThreadLocalAccessor<String> TENANT_ACCESSOR = new ThreadLocalAccessor<>() {
        @Override
        public Object key() {
            return "test.tenant";
        }

        @Override
        public String getValue() {
            return TENANT.get();
        }

        @Override
        public void setValue(String value) {
            TENANT.set(value);
        }

        @Override
        public void setValue() {
            TENANT.remove();
        }
    };

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WheelTimerAutoConfiguration.class))
            .withBean(ManualTicker.class, ManualTicker::new)
            .withUserConfiguration(OnePooledThread.class)
            .withBean(Seen.class);

    @BeforeEach
    void registerTheAccessor() {
        ContextRegistry.getInstance().registerThreadLocalAccessor(TENANT_ACCESSOR);
    }

    @AfterEach
    void cleanUp() {
        ContextRegistry.getInstance().removeThreadLocalAccessor("test.tenant");
        MDC.clear();
        TENANT.remove();
    }

    @Nested
    class WithPropagation {

        @Test
        void theCallersMdcIsSeenInsideTheDeferredMethod() {
            runner.run(context -> {
                MDC.put("requestId", "r-42");
                CompletableFuture<List<String>> seen = seen(context).look();
                MDC.clear(); // the caller moves on before the run
                advance(context);
                assertThat(seen)
                        .succeedsWithin(Duration.ofSeconds(30))
                        .satisfies(values -> assertThat(values).containsExactly("pool-1", "r-42", null));
            });
        }

        @Test
        void aCustomThreadLocalAccessorsValueIsSeenInside() {
            runner.run(context -> {
                TENANT.set("acme");
                CompletableFuture<List<String>> seen = seen(context).look();
                TENANT.remove();
                advance(context);
                assertThat(seen)
                        .succeedsWithin(Duration.ofSeconds(30))
                        .satisfies(values -> assertThat(values).containsExactly("pool-1", null, "acme"));
            });
        }

        @Test
        void nothingLeaksIntoTheNextRunOnTheSamePooledThread() {
            runner.run(context -> {
                MDC.put("requestId", "first");
                TENANT.set("acme");
                CompletableFuture<List<String>> first = seen(context).look();
                MDC.clear();
                TENANT.remove();
                CompletableFuture<List<String>> second = seen(context).look();
                advance(context);
                assertThat(first)
                        .succeedsWithin(Duration.ofSeconds(30))
                        .satisfies(values -> assertThat(values).containsExactly("pool-1", "first", "acme"));
                assertThat(second)
                        .succeedsWithin(Duration.ofSeconds(30))
                        .satisfies(values -> assertThat(values).containsExactly("pool-1", null, null));
                // And after the runs the pooled thread holds nothing either.
                CompletableFuture<List<String>> after =
                        CompletableFuture.supplyAsync(Seen::now, context.getBean("pool", ExecutorService.class));
                assertThat(after)
                        .succeedsWithin(Duration.ofSeconds(30))
                        .satisfies(values -> assertThat(values).containsExactly("pool-1", null, null));
            });
        }
    }

    @Test
    void propagateContextFalseCarriesNothing() {
        runner.withPropertyValues("wheel-timer.annotation.propagate-context=false")
                .run(context -> {
                    MDC.put("requestId", "r-42");
                    TENANT.set("acme");
                    CompletableFuture<List<String>> seen = seen(context).look();
                    advance(context);
                    assertThat(seen)
                            .succeedsWithin(Duration.ofSeconds(30))
                            .satisfies(values -> assertThat(values).containsExactly("pool-1", null, null));
                });
    }

    private static Seen seen(AssertableApplicationContext context) {
        return context.getBean(Seen.class);
    }

    private static void advance(AssertableApplicationContext context) {
        context.getBean(ManualTicker.class).advance(Duration.ofSeconds(1));
    }

    /** One pooled thread, named {@code pool-1}, as the executor of every call. */
    @Configuration(proxyBeanMethods = false)
    static class OnePooledThread {
        @Bean(destroyMethod = "shutdownNow")
        ExecutorService pool() {
            return Executors.newSingleThreadExecutor(new CustomizableThreadFactory("pool-"));
        }
    }

    /** What a deferred run sees: its thread, the MDC's requestId and the tenant. */
    static class Seen {
        @WheelTimeout(delay = "1s", executor = "pool")
        public CompletableFuture<List<String>> look() {
            return CompletableFuture.completedFuture(now());
        }

        static List<String> now() {
            List<String> values = new ArrayList<>();
            values.add(Thread.currentThread().getName());
            values.add(MDC.get("requestId"));
            values.add(TENANT.get());
            return values;
        }
    }
}
