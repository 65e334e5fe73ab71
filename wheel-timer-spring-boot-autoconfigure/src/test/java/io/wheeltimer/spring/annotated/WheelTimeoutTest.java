package io.wheeltimer.spring.annotated;

import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.calls;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.ticker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.tuple;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timeout;
import io.wheeltimer.TimeoutInfo;
import io.wheeltimer.Timer;
import io.wheeltimer.TimerStats;
import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Call;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Calls;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testing.ManualTicker;
import io.wheeltimer.testsupport.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.test.util.AopTestUtils;

/**
 * {@link WheelTimeout @WheelTimeout} as its javadoc describes it, through the auto-configuration,
 * with a {@link ManualTicker} driving time (100 ms ticks), one {@code @Nested} group per behaviour.
 * Elsewhere: the executor a call runs on in {@link WheelTimeoutExecutorTest}; mistakes that stop
 * startup in {@link WheelTimeoutStartupValidationTest} and, one case per kind with the printed
 * report, {@link AnnotationFailureReportTest}; parent and child contexts in
 * {@link WheelTimeoutContextHierarchyTest}.
 */
class WheelTimeoutTest {

    private static final String WORKER = "test-wheel";
    private static final Duration THIRTY_SECONDS = Duration.ofSeconds(30);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    PropertyPlaceholderAutoConfiguration.class, WheelTimerAutoConfiguration.class))
            .withPropertyValues("wheel-timer.thread-name=" + WORKER)
            .withBean(ManualTicker.class, ManualTicker::new)
            .withBean(Calls.class, Calls::new);

    /**
     * A call through the proxy does not run the method: it schedules it to run once, after the
     * delay, on the timer's worker.
     */
    @Nested
    class Scheduling {

        @Test
        void callOfAVoidMethodDoesNotRunItButSchedulesIt() {
            runner.withBean(Reminders.class).run(context -> {
                context.getBean(Reminders.class).remind("ann", 3);

                assertThat(calls(context).all()).isEmpty();
                assertThat(timer(context).stats().scheduled()).isEqualTo(1);
                assertThat(timer(context).pendingTimeouts()).isEqualTo(1);
            });
        }

        @Test
        void methodRunsAfterTheDelayWithTheCallsArgumentsOnTheWorkerThread() {
            runner.withBean(Reminders.class).run(context -> {
                context.getBean(Reminders.class).remind("ann", 3);

                ticker(context).advance(THIRTY_SECONDS.minusMillis(1));
                assertThat(calls(context).all()).isEmpty();
                ticker(context).advance(Duration.ofMillis(1));

                assertThat(calls(context).all()).containsExactly(new Call("remind", List.of("ann", 3), WORKER));
                assertThat(WORKER).isNotEqualTo(Thread.currentThread().getName());
                assertThat(timer(context).stats().expired()).isEqualTo(1);
            });
        }

        @Test
        void eachCallRunsOnceWithItsOwnArguments() {
            runner.withBean(Reminders.class).run(context -> {
                Reminders reminders = context.getBean(Reminders.class);
                reminders.remind("ann", 1);
                ticker(context).advance(Duration.ofSeconds(10));
                reminders.remind("bob", 2);

                ticker(context).advance(Duration.ofSeconds(20));
                assertThat(calls(context).all()).extracting(Call::args).containsExactly(List.of("ann", 1));
                ticker(context).advance(Duration.ofSeconds(10));
                assertThat(calls(context).all())
                        .extracting(Call::args)
                        .containsExactly(List.of("ann", 1), List.of("bob", 2));
            });
        }

        /** As with {@code @Async}: only calls through the proxy are deferred. */
        @Test
        void aCallFromTheBeanItselfRunsAtOnceOnTheCallersThread() {
            runner.withBean(SelfCalling.class).run(context -> {
                context.getBean(SelfCalling.class).outer("x");

                assertThat(calls(context).all())
                        .containsExactly(new Call(
                                "inner", List.of("x"), Thread.currentThread().getName()));
                assertThat(context.getBean("wheelTimer", HashedWheelTimer.class)
                                .stats()
                                .scheduled())
                        .isZero();
            });
        }
    }

    /**
     * What the proxy returns at the call, and how the method's own result reaches the caller, per
     * return type.
     */
    @Nested
    class ReturnTypes {

        @Test
        void timeoutReturnTypeGivesTheHandleOfTheScheduledCall() {
            runner.withBean(Reminders.class).run(context -> {
                Timeout timeout = context.getBean(Reminders.class).remindLater("ann");

                assertThat(timeout).isNotNull();
                assertThat(timeout.timer()).isSameAs(timer(context));
                assertThat(timeout.isExpired()).isFalse();
                assertThat(timeout.isCancelled()).isFalse();

                ticker(context).advance(THIRTY_SECONDS);
                assertThat(calls(context).methods()).containsExactly("remindLater");
                assertThat(timeout.isExpired()).isTrue();
                assertThat(timeout.cancel()).isFalse();
            });
        }

        @Test
        void cancelledTimeoutNeverRunsTheMethod() {
            runner.withBean(Reminders.class).run(context -> {
                Timeout timeout = context.getBean(Reminders.class).remindLater("ann");

                assertThat(timeout.cancel()).isTrue();
                ticker(context).advance(THIRTY_SECONDS.multipliedBy(2));

                assertThat(calls(context).all()).isEmpty();
                assertThat(timeout.isCancelled()).isTrue();
                assertThat(timer(context).stats().cancelled()).isEqualTo(1);
                assertThat(timer(context).stats().expired()).isZero();
            });
        }

        @Test
        void completableFutureCompletesWithTheMethodsResultAfterTheRun() throws Exception {
            runner.withBean(Reminders.class).run(context -> {
                CompletableFuture<String> greeting =
                        context.getBean(Reminders.class).greet("ann");
                assertThat(greeting).isNotDone();

                ticker(context).advance(THIRTY_SECONDS);
                assertThat(greeting).isCompletedWithValue("hello ann");
            });
        }

        @Test
        void completableFutureFollowsTheMethodsOwnFuture() {
            runner.withBean(Reminders.class).run(context -> {
                Reminders reminders = context.getBean(Reminders.class);
                CompletableFuture<String> result = reminders.ownFuture();

                ticker(context).advance(THIRTY_SECONDS);
                assertThat(calls(context).methods()).containsExactly("ownFuture");
                assertThat(result).isNotDone(); // the method ran; its own future has not completed yet

                reminders.own().complete("done later");
                assertThat(result).isCompletedWithValue("done later");
            });
        }

        @Test
        void completionStageCompletesWithTheMethodsResultAfterTheRun() {
            runner.withBean(Reminders.class).run(context -> {
                CompletionStage<String> greeting =
                        context.getBean(Reminders.class).greetStage("bob");
                assertThat(greeting.toCompletableFuture()).isNotDone();

                ticker(context).advance(THIRTY_SECONDS);
                assertThat(greeting.toCompletableFuture()).isCompletedWithValue("hello bob");
            });
        }

        @Test
        void futureCompletesWithTheResultOfTheMethodsPlainFuture() throws Exception {
            runner.withBean(Reminders.class).run(context -> {
                Future<String> greeting = context.getBean(Reminders.class).greetFuture("cy");
                assertThat(greeting.isDone()).isFalse();

                ticker(context).advance(THIRTY_SECONDS);
                // A plain Future (not a CompletionStage) is waited for off the worker thread.
                assertThat(greeting.get(10, TimeUnit.SECONDS)).isEqualTo("hello cy");
                assertThat(calls(context).all())
                        .singleElement()
                        .extracting(Call::thread)
                        .isEqualTo(WORKER);
            });
        }

        @Test
        void cancellingTheCompletableFutureCancelsTheTimeout() {
            runner.withBean(Reminders.class).run(context -> {
                CompletableFuture<String> greeting =
                        context.getBean(Reminders.class).greet("ann");

                assertThat(greeting.cancel(false)).isTrue();
                ticker(context).advance(THIRTY_SECONDS.multipliedBy(2));

                assertThat(greeting).isCancelled();
                assertThat(calls(context).all()).isEmpty();
                TimerStats stats = timer(context).stats();
                assertThat(stats.cancelled()).isEqualTo(1);
                assertThat(stats.expired()).isZero();
                assertThat(stats.pending()).isZero();
            });
        }

        @Test
        void cancellingTheCompletionStageCancelsTheTimeout() {
            runner.withBean(Reminders.class).run(context -> {
                CompletionStage<String> greeting =
                        context.getBean(Reminders.class).greetStage("bob");

                assertThat(greeting.toCompletableFuture().cancel(true)).isTrue();
                ticker(context).advance(THIRTY_SECONDS.multipliedBy(2));

                assertThat(calls(context).all()).isEmpty();
                assertThat(timer(context).stats().cancelled()).isEqualTo(1);
            });
        }

        @Test
        void cancellingTheFutureCancelsTheTimeout() {
            runner.withBean(Reminders.class).run(context -> {
                Future<String> greeting = context.getBean(Reminders.class).greetFuture("cy");

                assertThat(greeting.cancel(true)).isTrue();
                ticker(context).advance(THIRTY_SECONDS.multipliedBy(2));

                assertThat(greeting.isCancelled()).isTrue();
                assertThat(calls(context).all()).isEmpty();
                assertThat(timer(context).stats().cancelled()).isEqualTo(1);
            });
        }

        @Test
        void stoppingTheTimerCancelsThePendingFuture() {
            runner.withBean(Reminders.class).run(context -> {
                CompletableFuture<String> greeting =
                        context.getBean(Reminders.class).greet("ann");
                List<TimeoutInfo> upcoming = timer(context).upcoming(10);
                assertThat(upcoming).hasSize(1);

                Set<Timeout> neverRan = timer(context).stop();

                assertThat(neverRan).hasSize(1);
                assertThat(greeting).isCancelled();
                assertThat(calls(context).all()).isEmpty();
            });
        }
    }

    /**
     * The forms the delay is written in: durations, ISO-8601, placeholders, plain numbers in the
     * time unit.
     */
    @Nested
    class DelayForms {

        @Test
        void delayInSimpleFormSuchAs30s() {
            runner.withBean(Delays.class).run(context -> {
                context.getBean(Delays.class).simple();
                assertRunsExactlyAfter(context, Duration.ofSeconds(30), "simple");
            });
        }

        @Test
        void delayInIsoFormSuchAsPT30S() {
            runner.withBean(Delays.class).run(context -> {
                context.getBean(Delays.class).iso();
                assertRunsExactlyAfter(context, Duration.ofSeconds(30), "iso");
            });
        }

        @Test
        void delayFromAPlaceholder() {
            runner.withBean(PlaceholderDelay.class)
                    .withPropertyValues("my.delay=45s")
                    .run(context -> {
                        context.getBean(PlaceholderDelay.class).placeholder();
                        assertRunsExactlyAfter(context, Duration.ofSeconds(45), "placeholder");
                    });
        }

        @Test
        void delayFromAPlaceholderInIsoForm() {
            runner.withBean(PlaceholderDelay.class)
                    .withPropertyValues("my.delay=PT1M")
                    .run(context -> {
                        context.getBean(PlaceholderDelay.class).placeholder();
                        assertRunsExactlyAfter(context, Duration.ofMinutes(1), "placeholder");
                    });
        }

        @Test
        void delayFromThePlaceholdersDefaultWhenThePropertyIsMissing() {
            runner.withBean(Delays.class).run(context -> {
                context.getBean(Delays.class).placeholderDefault();
                assertRunsExactlyAfter(context, Duration.ofSeconds(2), "placeholderDefault");
            });
        }

        @Test
        void delayFromThePropertyOverridesThePlaceholdersDefault() {
            runner.withBean(Delays.class)
                    .withPropertyValues("my.other-delay=700ms")
                    .run(context -> {
                        context.getBean(Delays.class).placeholderDefault();
                        assertRunsExactlyAfter(context, Duration.ofMillis(700), "placeholderDefault");
                    });
        }

        @Test
        void plainNumberDelayIsInMillisecondsByDefault() {
            runner.withBean(Delays.class).run(context -> {
                context.getBean(Delays.class).plainMillis();
                assertRunsExactlyAfter(context, Duration.ofMillis(1500), "plainMillis");
            });
        }

        @Test
        void plainNumberDelayIsReadInTheTimeUnit() {
            runner.withBean(Delays.class).run(context -> {
                context.getBean(Delays.class).plainSeconds();
                assertRunsExactlyAfter(context, Duration.ofSeconds(1500), "plainSeconds");
            });
        }

        @Test
        void plainNumberDelayFromAPlaceholderIsReadInTheTimeUnit() {
            runner.withBean(Delays.class).withPropertyValues("my.minutes=2").run(context -> {
                context.getBean(Delays.class).placeholderMinutes();
                assertRunsExactlyAfter(context, Duration.ofMinutes(2), "placeholderMinutes");
            });
        }

        @Test
        void valueIsAnAliasForDelay() {
            runner.withBean(Delays.class).run(context -> {
                context.getBean(Delays.class).valueAlias();
                assertRunsExactlyAfter(context, Duration.ofSeconds(5), "valueAlias");
            });
        }

        @Test
        void zeroDelayRunsOnTheNextTick() {
            runner.withBean(Delays.class).run(context -> {
                context.getBean(Delays.class).zero();
                assertThat(calls(context).all()).isEmpty();

                ticker(context).advance(Duration.ofMillis(99));
                assertThat(calls(context).all()).isEmpty();
                ticker(context).advance(Duration.ofMillis(1));
                assertThat(calls(context).all()).singleElement().isEqualTo(new Call("zero", List.of(), WORKER));
            });
        }
    }

    /**
     * Which timer bean runs the call: the named one (trimmed), else the one @Autowired Timer gets.
     */
    @Nested
    class ChoosingTheTimer {

        @Test
        void timerAttributePicksTheNamedTimerBean() {
            runner.withUserConfiguration(TwoTimers.class)
                    .withBean(OnOtherTimer.class)
                    .run(context -> {
                        assertThat(context).doesNotHaveBean("wheelTimer"); // backs off for the user's timers
                        HashedWheelTimer main = context.getBean("main", HashedWheelTimer.class);
                        HashedWheelTimer other = context.getBean("other", HashedWheelTimer.class);

                        context.getBean(OnOtherTimer.class).run("x");

                        assertThat(other.stats().scheduled()).isEqualTo(1);
                        assertThat(main.stats().scheduled()).isZero();
                        assertThat(other.upcoming(10))
                                .extracting(TimeoutInfo::task)
                                .containsExactly(OnOtherTimer.class.getName() + ".run(String)");
                        ticker(context).advance(Duration.ofSeconds(1));
                        assertThat(calls(context).all()).containsExactly(new Call("run", List.of("x"), "other-wheel"));
                    });
        }

        @Test
        void withoutTimerAttributeThePrimaryTimerIsUsed() {
            runner.withUserConfiguration(TwoTimersMainPrimary.class)
                    .withBean(Delays.class)
                    .run(context -> {
                        HashedWheelTimer main = context.getBean("main", HashedWheelTimer.class);
                        HashedWheelTimer other = context.getBean("other", HashedWheelTimer.class);

                        context.getBean(Delays.class).simple();

                        assertThat(main.stats().scheduled()).isEqualTo(1);
                        assertThat(other.stats().scheduled()).isZero();
                        ticker(context).advance(THIRTY_SECONDS);
                        assertThat(calls(context).all())
                                .extracting(Call::thread)
                                .containsExactly("main-wheel");
                    });
        }

        @Test
        void withoutTimerAttributeTheOnlyUserTimerIsUsed() {
            runner.withUserConfiguration(OneUserTimer.class)
                    .withBean(Delays.class)
                    .run(context -> {
                        assertThat(context).doesNotHaveBean("wheelTimer");

                        context.getBean(Delays.class).simple();

                        assertThat(context.getBean("mine", HashedWheelTimer.class)
                                        .stats()
                                        .scheduled())
                                .isEqualTo(1);
                        ticker(context).advance(THIRTY_SECONDS);
                        assertThat(calls(context).all())
                                .extracting(Call::thread)
                                .containsExactly("my-wheel");
                    });
        }

        @Test
        void aSecondTimerThatIsNoDefaultCandidateLeavesCallsOnWheelTimerAsAutowiringDoes() {
            runner.withUserConfiguration(AuditTimer.class)
                    .withBean(Delays.class)
                    .withBean(OnAuditTimer.class)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        HashedWheelTimer wheelTimer = context.getBean("wheelTimer", HashedWheelTimer.class);
                        HashedWheelTimer auditTimer = context.getBean("auditTimer", HashedWheelTimer.class);
                        assertThat(context.getBeanProvider(Timer.class).getIfUnique())
                                .as("what @Autowired Timer gets")
                                .isSameAs(wheelTimer);

                        context.getBean(Delays.class).simple();
                        context.getBean(OnAuditTimer.class).run("x");

                        assertThat(wheelTimer.upcoming(10))
                                .extracting(TimeoutInfo::task)
                                .containsExactly(Delays.class.getName() + ".simple()");
                        assertThat(auditTimer.upcoming(10))
                                .extracting(TimeoutInfo::task)
                                .containsExactly(OnAuditTimer.class.getName() + ".run(String)");
                        ticker(context).advance(THIRTY_SECONDS);
                        assertThat(calls(context).all())
                                .extracting(Call::method, Call::thread)
                                .containsExactlyInAnyOrder(tuple("run", "audit"), tuple("simple", WORKER));
                    });
        }

        @Test
        void aPrimaryTimerIsUsedOverAnotherDefaultCandidate() {
            runner.withUserConfiguration(TwoTimersMainPrimary.class, AuditTimer.class)
                    .withBean(Delays.class)
                    .run(context -> {
                        context.getBean(Delays.class).simple();

                        assertThat(context.getBean("main", HashedWheelTimer.class)
                                        .stats()
                                        .scheduled())
                                .isEqualTo(1);
                        assertThat(context.getBean("auditTimer", HashedWheelTimer.class)
                                        .stats()
                                        .scheduled())
                                .isZero();
                    });
        }

        @Test
        void theTimerAttributeIsTrimmed() {
            runner.withUserConfiguration(TwoTimers.class)
                    .withBean(OnOtherTimerWithSpaces.class)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        context.getBean(OnOtherTimerWithSpaces.class).run("x");

                        assertThat(context.getBean("other", HashedWheelTimer.class)
                                        .stats()
                                        .scheduled())
                                .isEqualTo(1);
                    });
        }
    }

    /** How a scheduled call describes itself in the timer's upcoming timeouts and logs. */
    @Nested
    class TaskDescription {

        @Test
        void taskIsDescribedAsUserClassMethodAndSimpleParameterTypes() {
            runner.withBean(Reminders.class).run(context -> {
                Reminders reminders = context.getBean(Reminders.class);
                assertThat(AopUtils.isCglibProxy(reminders)).isTrue();

                reminders.remind("secret-argument", 42);

                assertThat(timer(context).upcoming(10)).singleElement().satisfies(info -> {
                    assertThat(info.task()).isEqualTo(Reminders.class.getName() + ".remind(String, int)");
                    assertThat(info.remaining()).isEqualTo(THIRTY_SECONDS);
                });
            });
        }

        @Test
        void taskDescriptionNamesNeitherTheProxyClassNorTheArguments() {
            runner.withBean(Reminders.class).run(context -> {
                Reminders reminders = context.getBean(Reminders.class);
                reminders.remind("secret-argument", 42);
                reminders.greet("other-secret");

                assertThat(timer(context).upcoming(10))
                        .extracting(TimeoutInfo::task)
                        .containsExactlyInAnyOrder(
                                Reminders.class.getName() + ".remind(String, int)",
                                Reminders.class.getName() + ".greet(String)")
                        .allSatisfy(
                                task -> assertThat(task).doesNotContain("$$", "CGLIB", "SpringCGLIB", "secret", "42"));
            });
        }

        @Test
        void taskDescriptionUsesSimpleNamesForArraysAndGenericTypes() {
            runner.withBean(Delays.class).run(context -> {
                context.getBean(Delays.class).batch(new String[] {"a"}, List.of(1), new int[] {2});

                assertThat(timer(context).upcoming(10))
                        .extracting(TimeoutInfo::task)
                        .containsExactly(Delays.class.getName() + ".batch(String[], List, int[])");
            });
        }

        @Test
        void taskOfAnInterfaceBasedBeanIsDescribedAsTheImplementationClass() {
            runner.withBean("englishGreeter", Greeter.class, EnglishGreeter::new)
                    .run(context -> {
                        Greeter greeter = context.getBean(Greeter.class);
                        assertThat(AopUtils.isJdkDynamicProxy(greeter)).isTrue();

                        greeter.greet("ann", 2);

                        assertThat(timer(context).upcoming(10))
                                .extracting(TimeoutInfo::task)
                                .containsExactly(EnglishGreeter.class.getName() + ".greet(String, int)");
                        ticker(context).advance(Duration.ofSeconds(1));
                        assertThat(timer(context).stats().expired()).isEqualTo(1);
                    });
        }

        @Test
        void annotationOnTheInterfaceMethodApplies() {
            runner.withBean("politeGreeter", AnnotatedGreeter.class, PoliteGreeter::new)
                    .run(context -> {
                        AnnotatedGreeter greeter = context.getBean(AnnotatedGreeter.class);
                        PoliteGreeter target = (PoliteGreeter) AopTestUtils.getTargetObject(greeter);

                        greeter.greet("bob");

                        assertThat(target.greeted).isEmpty();
                        assertThat(timer(context).upcoming(10))
                                .extracting(TimeoutInfo::task)
                                .containsExactly(PoliteGreeter.class.getName() + ".greet(String)");
                        ticker(context).advance(Duration.ofSeconds(2));
                        assertThat(target.greeted).containsExactly("bob");
                    });
        }

        @Test
        void genericInterfaceMethodIsDescribedWithTheImplementationsParameterTypes() {
            runner.withBean("orderHandler", Handler.class, () -> new OrderHandler())
                    .run(context -> {
                        @SuppressWarnings("unchecked")
                        Handler<String> handler = context.getBean(Handler.class);

                        handler.handle("order-1");

                        assertThat(timer(context).upcoming(10))
                                .extracting(TimeoutInfo::task)
                                .containsExactly(OrderHandler.class.getName() + ".handle(String)");
                        ticker(context).advance(Duration.ofSeconds(1));
                        assertThat(((OrderHandler) AopTestUtils.getTargetObject(handler)).handled)
                                .containsExactly("order-1");
                    });
        }

        @Test
        void inheritedMethodIsDescribedAsEachBeansOwnClass() {
            runner.withBean("jobA", JobA.class, JobA::new)
                    .withBean("jobB", JobB.class, JobB::new)
                    .run(context -> {
                        context.getBean(JobA.class).fire("a");
                        context.getBean(JobB.class).fire("b");

                        assertThat(timer(context).upcoming(10))
                                .extracting(TimeoutInfo::task)
                                .containsExactlyInAnyOrder(
                                        JobA.class.getName() + ".fire(String)", JobB.class.getName() + ".fire(String)");
                    });
        }

        @Test
        void inheritedMethodOfOneBeanIsDescribedAsItsClass() {
            runner.withBean("jobB", JobB.class, JobB::new).run(context -> {
                context.getBean(JobB.class).fire("b");

                assertThat(timer(context).upcoming(10))
                        .extracting(TimeoutInfo::task)
                        .containsExactly(JobB.class.getName() + ".fire(String)");
            });
        }
    }

    /** A method that fails on the worker: counted, logged, or handed to the caller's future. */
    @Nested
    class Failures {

        @Test
        void failureOfAVoidMethodIsCountedAndLogged() {
            runner.withBean(Reminders.class).run(context -> {
                try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                    context.getBean(Reminders.class).fail("boom-void");

                    ticker(context).advance(THIRTY_SECONDS);

                    assertThat(calls(context).methods()).containsExactly("fail");
                    assertThat(timer(context).stats().failed()).isEqualTo(1);
                    assertThat(timer(context).stats().expired()).isEqualTo(1);
                    assertFailureLogged(log, Reminders.class.getName() + ".fail(String)", "boom-void");
                }
            });
        }

        @Test
        void failureOfATimeoutMethodIsCountedAndLogged() {
            runner.withBean(Reminders.class).run(context -> {
                try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                    Timeout timeout = context.getBean(Reminders.class).failWithHandle("boom-timeout");

                    ticker(context).advance(THIRTY_SECONDS);

                    assertThat(timeout.isExpired()).isTrue();
                    assertThat(timer(context).stats().failed()).isEqualTo(1);
                    assertFailureLogged(log, Reminders.class.getName() + ".failWithHandle(String)", "boom-timeout");
                }
            });
        }

        @Test
        void checkedExceptionOfAVoidMethodIsCountedAsFailed() {
            runner.withBean(Reminders.class).run(context -> {
                context.getBean(Reminders.class).failChecked("io");

                ticker(context).advance(THIRTY_SECONDS);

                assertThat(calls(context).methods()).containsExactly("failChecked");
                assertThat(timer(context).stats().failed()).isEqualTo(1);
            });
        }

        @Test
        void workerGoesOnAfterAFailedMethod() {
            runner.withBean(Reminders.class).run(context -> {
                Reminders reminders = context.getBean(Reminders.class);
                reminders.fail("first");
                ticker(context).advance(THIRTY_SECONDS);
                reminders.remind("ann", 1);
                ticker(context).advance(THIRTY_SECONDS);

                assertThat(calls(context).methods()).containsExactly("fail", "remind");
            });
        }

        @Test
        void failureOfAFutureMethodCompletesTheFutureExceptionallyAndIsNotCounted() {
            runner.withBean(Reminders.class).run(context -> {
                CompletableFuture<String> result =
                        context.getBean(Reminders.class).failFuture("boom-future");

                ticker(context).advance(THIRTY_SECONDS);

                assertThat(result).isCompletedExceptionally();
                assertThatExceptionOfType(ExecutionException.class)
                        .isThrownBy(result::get)
                        .havingCause()
                        .isInstanceOf(IllegalStateException.class)
                        .withMessage("boom-future");
                assertThat(timer(context).stats().failed()).isZero();
                assertThat(timer(context).stats().expired()).isEqualTo(1);
            });
        }

        @Test
        void checkedExceptionOfAFutureMethodCompletesTheFutureExceptionally() {
            runner.withBean(Reminders.class).run(context -> {
                CompletableFuture<String> result =
                        context.getBean(Reminders.class).failFutureChecked("io");

                ticker(context).advance(THIRTY_SECONDS);

                assertThatExceptionOfType(ExecutionException.class)
                        .isThrownBy(result::get)
                        .havingCause()
                        .isInstanceOf(java.io.IOException.class)
                        .withMessage("io");
                assertThat(timer(context).stats().failed()).isZero();
            });
        }

        @Test
        void failureOfTheMethodsOwnFuturePassesIntoTheReturnedFuture() {
            runner.withBean(Reminders.class).run(context -> {
                CompletableFuture<String> result =
                        context.getBean(Reminders.class).failedFuture("own-failure");

                ticker(context).advance(THIRTY_SECONDS);

                assertThatExceptionOfType(ExecutionException.class)
                        .isThrownBy(result::get)
                        .havingCause()
                        .isInstanceOf(IllegalStateException.class)
                        .withMessage("own-failure");
                assertThat(timer(context).stats().failed()).isZero();
            });
        }

        @Test
        void failureOfThePlainFuturePassesIntoTheReturnedFuture() {
            runner.withBean(Reminders.class).run(context -> {
                Future<String> result = context.getBean(Reminders.class).failedPlainFuture("plain-failure");

                ticker(context).advance(THIRTY_SECONDS);

                assertThatExceptionOfType(ExecutionException.class)
                        .isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
                        .havingCause()
                        .isInstanceOf(IllegalStateException.class)
                        .withMessage("plain-failure");
            });
        }

        @Test
        void errorOfAFutureMethodCompletesTheFutureExceptionally() {
            runner.withBean(Reminders.class).run(context -> {
                CompletableFuture<String> result =
                        context.getBean(Reminders.class).failFutureWithError("error");

                ticker(context).advance(THIRTY_SECONDS);

                assertThat(result).isCompletedExceptionally();
                assertThatExceptionOfType(ExecutionException.class)
                        .isThrownBy(result::get)
                        .havingCause()
                        .isInstanceOf(AssertionError.class)
                        .withMessage("error");
            });
        }
    }

    /**
     * Calls the timer refuses: after it stopped or the context closed, and beyond its maximum of
     * pending timeouts.
     */
    @Nested
    class RefusedCalls {

        @Test
        void callAfterTheTimerStoppedThrowsIllegalStateExceptionNamingTheMethod() {
            runner.withBean(Reminders.class).run(context -> {
                timer(context).stop();

                assertThatIllegalStateException()
                        .isThrownBy(() -> context.getBean(Reminders.class).remind("ann", 1))
                        .withMessageContaining("stopped")
                        .withMessageContaining(Reminders.class.getName() + ".remind(String, int)");
                assertThat(calls(context).all()).isEmpty();
            });
        }

        @Test
        void futureCallAfterTheTimerStoppedThrowsIllegalStateException() {
            runner.withBean(Reminders.class).run(context -> {
                Reminders reminders = context.getBean(Reminders.class);
                reminders.greet("before"); // the timer has started and resolved
                timer(context).stop();

                assertThatIllegalStateException()
                        .isThrownBy(() -> reminders.greet("after"))
                        .withMessageContaining("stopped")
                        .withMessageContaining(Reminders.class.getName() + ".greet(String)");
            });
        }

        @Test
        void callAfterTheContextClosedThrowsIllegalStateException() {
            Reminders[] bean = new Reminders[1];
            runner.withBean(Reminders.class).run(context -> {
                bean[0] = context.getBean(Reminders.class);
                bean[0].remind("warm-up", 0);
            });
            assertThatIllegalStateException()
                    .isThrownBy(() -> bean[0].remind("late", 1))
                    .withMessageContaining("stopped");
        }

        @Test
        void callBeyondMaxPendingTimeoutsIsRejected() {
            runner.withPropertyValues("wheel-timer.max-pending-timeouts=1")
                    .withBean(Reminders.class)
                    .run(context -> {
                        Reminders reminders = context.getBean(Reminders.class);
                        reminders.remind("ann", 1);

                        assertThatExceptionOfType(RejectedExecutionException.class)
                                .isThrownBy(() -> reminders.remind("bob", 2))
                                .withMessage(
                                        "Number of pending timeouts (2) is greater than or equal to maximum allowed"
                                                + " pending timeouts (1)");
                        ticker(context).advance(THIRTY_SECONDS);
                        assertThat(calls(context).all()).extracting(Call::args).containsExactly(List.of("ann", 1));
                        assertThat(timer(context).stats().rejected()).isEqualTo(1);
                    });
        }
    }

    /** Calls from several threads at once. */
    @Nested
    class Concurrency {

        @Test
        void callsFromSeveralThreadsAreAllScheduled() throws Exception {
            runner.withBean(Reminders.class).run(context -> {
                Reminders reminders = context.getBean(Reminders.class);
                int threads = 8;
                int callsPerThread = 50;
                CountDownLatch start = new CountDownLatch(1);
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                try {
                    List<Future<?>> done = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        String caller = "caller-" + t;
                        done.add(pool.submit(() -> {
                            start.await();
                            for (int i = 0; i < callsPerThread; i++) {
                                reminders.remind(caller, i);
                            }
                            return null;
                        }));
                    }
                    start.countDown();
                    for (Future<?> f : done) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                } finally {
                    pool.shutdownNow();
                }

                assertThat(timer(context).stats().scheduled()).isEqualTo(threads * callsPerThread);
                assertThat(calls(context).all()).isEmpty();
                ticker(context).advance(THIRTY_SECONDS);

                Set<List<Object>> expected = new HashSet<>();
                for (int t = 0; t < threads; t++) {
                    for (int i = 0; i < callsPerThread; i++) {
                        expected.add(List.of("caller-" + t, i));
                    }
                }
                List<Call> ran = calls(context).all();
                assertThat(ran).hasSize(threads * callsPerThread);
                assertThat(ran).extracting(Call::args).containsExactlyInAnyOrderElementsOf(expected);
                assertThat(ran).extracting(Call::thread).containsOnly(WORKER);
                assertThat(timer(context).stats().pending()).isZero();
            });
        }
    }

    /**
     * Whether the starter's post-processor applies: not with the starter turned off, and not beside
     * one the application declares.
     */
    @Nested
    class ThePostProcessor {

        @Test
        void disabledStarterRunsAnnotatedMethodsAtOnceOnTheCallersThread() {
            runner.withPropertyValues("wheel-timer.enabled=false")
                    .withBean(Reminders.class)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context).doesNotHaveBean(WheelTimeoutBeanPostProcessor.class);
                        assertThat(context).doesNotHaveBean(Timer.class);
                        Reminders reminders = context.getBean(Reminders.class);
                        assertThat(AopUtils.isAopProxy(reminders)).isFalse();

                        reminders.remind("ann", 1);

                        assertThat(calls(context).all())
                                .containsExactly(new Call(
                                        "remind",
                                        List.of("ann", 1),
                                        Thread.currentThread().getName()));
                    });
        }

        @Test
        void enabledStarterRegistersTheBeanPostProcessor() {
            runner.run(context -> assertThat(context).hasSingleBean(WheelTimeoutBeanPostProcessor.class));
        }

        @Test
        void userBeanPostProcessorReplacesTheAutoConfiguredOne() {
            runner.withUserConfiguration(OwnPostProcessor.class)
                    .withBean(Reminders.class)
                    .run(context -> {
                        assertThat(context)
                                .getBeans(WheelTimeoutBeanPostProcessor.class)
                                .containsOnlyKeys("mine");

                        context.getBean(Reminders.class).remind("ann", 1);
                        assertThat(calls(context).all()).isEmpty();
                        ticker(context).advance(THIRTY_SECONDS);
                        assertThat(calls(context).methods()).containsExactly("remind");
                    });
        }
    }

    // --- helpers ------------------------------------------------------------------------------

    private static HashedWheelTimer timer(AssertableApplicationContext context) {
        return context.getBean(HashedWheelTimer.class);
    }

    /**
     * The one pending call is due exactly {@code delay} from now (a multiple of the 100 ms tick).
     */
    private static void assertRunsExactlyAfter(AssertableApplicationContext context, Duration delay, String method) {
        assertThat(timer(context).upcoming(10))
                .singleElement()
                .extracting(TimeoutInfo::remaining)
                .isEqualTo(delay);
        ticker(context).advance(delay.minusMillis(1));
        assertThat(calls(context).all()).isEmpty();
        ticker(context).advance(Duration.ofMillis(1));
        assertThat(calls(context).methods()).containsExactly(method);
    }

    private static void assertFailureLogged(LogCapture log, String description, String message) {
        // Filtered by the description: other timers of the JVM may log meanwhile.
        assertThat(log.records())
                .filteredOn(r -> r.getMessage().contains(description))
                .singleElement()
                .satisfies((LogRecord r) -> {
                    assertThat(r.getLevel().intValue()).isGreaterThanOrEqualTo(Level.WARNING.intValue());
                    assertThat(r.getThrown())
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessage(message);
                });
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

    /** A placeholder without default: its property must be set. */
    static class PlaceholderDelay {
        final Calls calls;

        PlaceholderDelay(Calls calls) {
            this.calls = calls;
        }

        @WheelTimeout(delay = "${my.delay}")
        public void placeholder() {
            calls.record("placeholder");
        }
    }

    interface Greeter {
        void greet(String who, int times);
    }

    /** Implements an interface: proxied by a JDK proxy. */
    static class EnglishGreeter implements Greeter {
        @Override
        @WheelTimeout("1s")
        public void greet(String who, int times) {}
    }

    interface AnnotatedGreeter {
        @WheelTimeout("2s")
        void greet(String who);
    }

    static class PoliteGreeter implements AnnotatedGreeter {
        final List<String> greeted = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void greet(String who) {
            greeted.add(who);
        }
    }

    interface Handler<T> {
        void handle(T event);
    }

    static class OrderHandler implements Handler<String> {
        final List<String> handled = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        @WheelTimeout("1s")
        public void handle(String event) {
            handled.add(event);
        }
    }

    abstract static class Job {
        @WheelTimeout("1s")
        public void fire(String id) {}
    }

    static class JobA extends Job {}

    static class JobB extends Job {}

    static class OnOtherTimer {
        final Calls calls;

        OnOtherTimer(Calls calls) {
            this.calls = calls;
        }

        @WheelTimeout(delay = "1s", timer = "other")
        public void run(String what) {
            calls.record("run", what);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoTimers {
        @Bean(destroyMethod = "stop")
        HashedWheelTimer main(ManualTicker ticker) {
            return HashedWheelTimer.builder().name("main-wheel").ticker(ticker).build();
        }

        @Bean(destroyMethod = "stop")
        HashedWheelTimer other(ManualTicker ticker) {
            return HashedWheelTimer.builder().name("other-wheel").ticker(ticker).build();
        }
    }

    /**
     * The second timer as the README declares it: from the builder bean, not a default candidate.
     */
    @Configuration(proxyBeanMethods = false)
    static class AuditTimer {
        @Bean(defaultCandidate = false)
        HashedWheelTimer auditTimer(HashedWheelTimer.Builder builder) {
            return builder.name("audit").build();
        }
    }

    static class OnAuditTimer {
        final Calls calls;

        OnAuditTimer(Calls calls) {
            this.calls = calls;
        }

        @WheelTimeout(delay = "1s", timer = "auditTimer")
        public void run(String what) {
            calls.record("run", what);
        }
    }

    static class OnOtherTimerWithSpaces {
        @WheelTimeout(delay = "1s", timer = " other ")
        public void run(String what) {}
    }

    static class SelfCalling {
        final Calls calls;

        SelfCalling(Calls calls) {
            this.calls = calls;
        }

        public void outer(String what) {
            inner(what);
        }

        @WheelTimeout("1s")
        public void inner(String what) {
            calls.record("inner", what);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoTimersMainPrimary {
        @Bean(destroyMethod = "stop")
        @Primary
        HashedWheelTimer main(ManualTicker ticker) {
            return HashedWheelTimer.builder().name("main-wheel").ticker(ticker).build();
        }

        @Bean(destroyMethod = "stop")
        HashedWheelTimer other(ManualTicker ticker) {
            return HashedWheelTimer.builder().name("other-wheel").ticker(ticker).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OneUserTimer {
        @Bean(destroyMethod = "stop")
        HashedWheelTimer mine(ManualTicker ticker) {
            return HashedWheelTimer.builder().name("my-wheel").ticker(ticker).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnPostProcessor {
        @Bean
        static WheelTimeoutBeanPostProcessor mine() {
            return new WheelTimeoutBeanPostProcessor();
        }
    }
}
