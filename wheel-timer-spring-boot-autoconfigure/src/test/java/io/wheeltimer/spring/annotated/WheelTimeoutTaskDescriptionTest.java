package io.wheeltimer.spring.annotated;

import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.THIRTY_SECONDS;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.ticker;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.timer;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.wheelTimeoutRunner;
import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.TimeoutInfo;
import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Delays;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Reminders;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.test.util.AopTestUtils;

/**
 * How a scheduled {@code @WheelTimeout} call describes itself in the timer's upcoming timeouts and
 * logs: the user's class (never the proxy), the method and simple parameter type names, never the
 * arguments.
 */
class WheelTimeoutTaskDescriptionTest {

    private final ApplicationContextRunner runner = wheelTimeoutRunner();

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
                    .allSatisfy(task -> assertThat(task).doesNotContain("$$", "CGLIB", "SpringCGLIB", "secret", "42"));
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
        runner.withBean("englishGreeter", Greeter.class, EnglishGreeter::new).run(context -> {
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
        runner.withBean("orderHandler", Handler.class, () -> new OrderHandler()).run(context -> {
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

    // --- user beans ---------------------------------------------------------------------------

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
}
