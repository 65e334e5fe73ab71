package io.wheeltimer.spring.annotated;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.Timeout;
import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.spring.WheelTimeLimit;
import io.wheeltimer.spring.WheelTimeout;
import java.lang.annotation.Annotation;
import java.lang.annotation.ElementType;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ReflectionUtils;

/** The hints for annotated methods of beans: what a native image needs to call them and build their data. */
class AnnotatedMethodsAotProcessorTest {

    private final DefaultGenerationContext generation = new DefaultGenerationContext(
            new ClassNameGenerator(ClassName.get("io.wheeltimer.spring.annotated", "Test")),
            new InMemoryGeneratedFiles());
    private final RuntimeHints hints = generation.getRuntimeHints();

    @Test
    void everyAnnotatedMethodOfABeanCanBeInvoked() {
        process(Annotated.class);

        assertThat(invocable(Annotated.class, "later", String.class)).isTrue();
        assertThat(invocable(Annotated.class, "limited", String.class)).isTrue();
        assertThat(invocable(Annotated.class, "onDeadline", String.class)).isTrue();
        assertThat(invocable(Annotated.class, "onTimeout", DurableTimeout.class))
                .isTrue();
        assertThat(invocable(Annotated.class, "notAnnotated")).isFalse();
        // The key and the DurableTimeout are the timer's own: nothing of them is bound from JSON.
        assertThat(RuntimeHintsPredicates.reflection().onType(DurableTimeout.class))
                .rejects(hints);
    }

    @Test
    void anInterfaceMethodOfAnAnnotatedMethodCanBeInvokedToo() {
        process(Implementation.class);

        assertThat(invocable(Implementation.class, "charge", String.class)).isTrue();
        assertThat(invocable(Charges.class, "charge", String.class)).isTrue();
    }

    @Test
    void theDataADurableTaskTakesBesidesItsKeyIsBoundFromJson() {
        process(WithData.class);

        assertThat(invocable(WithData.class, "onDeadline", String.class, Payment.class))
                .isTrue();
        // Jackson's binding: the record, its accessors and constructor, and the types inside it.
        assertThat(RuntimeHintsPredicates.reflection().onType(Payment.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Payment.class, "amount"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Item.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Item.class, "name"))
                .accepts(hints);
    }

    @Test
    void aBeanWithoutAnnotatedMethodsContributesNothing() {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("plain", new RootBeanDefinition(Plain.class));

        assertThat(new AnnotatedMethodsAotProcessor().processAheadOfTime(RegisteredBean.of(beanFactory, "plain")))
                .isNull();
    }

    @Test
    void theProcessorIsFoundInAotFactories() {
        assertThat(AotServices.factories().load(BeanRegistrationAotProcessor.class))
                .hasAtLeastOneElementOfType(AnnotatedMethodsAotProcessor.class);
    }

    @Test
    void anApplicationContextProcessedAheadOfTimeGetsTheHints() {
        try (GenericApplicationContext context = new GenericApplicationContext()) {
            context.registerBean("annotated", Annotated.class);
            new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        }

        assertThat(invocable(Annotated.class, "later", String.class)).isTrue();
        assertThat(invocable(Annotated.class, "onDeadline", String.class)).isTrue();
    }

    /** A new annotation of ours on methods must be covered here, or a native image would not call its methods. */
    @Test
    void everyMethodAnnotationOfOursGetsHints() {
        List<Class<? extends Annotation>> ours = OurAnnotations.find("io.wheeltimer").stream()
                .filter(type -> targets(type, ElementType.METHOD))
                .toList();

        assertThat(ours).contains(WheelTimeout.class, WheelTimeLimit.class, DurableTimerTask.class);
        assertThat(new AnnotatedMethodsAotProcessor().annotationTypes()).containsAll(ours);
    }

    private static boolean targets(Class<? extends Annotation> type, ElementType element) {
        Target target = type.getAnnotation(Target.class);
        return target != null && Arrays.asList(target.value()).contains(element);
    }

    private void process(Class<?> beanClass) {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
        BeanRegistrationAotContribution contribution =
                new AnnotatedMethodsAotProcessor().processAheadOfTime(RegisteredBean.of(beanFactory, "bean"));
        assertThat(contribution).isNotNull();
        contribution.applyTo(generation, null);
    }

    private boolean invocable(Class<?> type, String name, Class<?>... parameterTypes) {
        Method method = ReflectionUtils.findMethod(type, name, parameterTypes);
        assertThat(method).as(name).isNotNull();
        return RuntimeHintsPredicates.reflection().onMethodInvocation(method).test(hints);
    }

    static class Annotated {

        @WheelTimeout("1s")
        public Timeout later(String id) {
            return null;
        }

        @WheelTimeLimit("1s")
        public CompletableFuture<String> limited(String id) {
            return CompletableFuture.completedFuture(id);
        }

        @DurableTimerTask("deadline")
        public void onDeadline(String key) {}

        @DurableTimerTask("timeout")
        public void onTimeout(DurableTimeout timeout) {}

        public void notAnnotated() {}
    }

    interface Charges {
        CompletableFuture<String> charge(String id);
    }

    static class Implementation implements Charges {

        @Override
        @WheelTimeLimit("1s")
        public CompletableFuture<String> charge(String id) {
            return CompletableFuture.completedFuture(id);
        }
    }

    record Item(String name) {}

    record Payment(BigDecimal amount, List<Item> items) {}

    static class WithData {

        @DurableTimerTask("with-data")
        public void onDeadline(String key, Payment data) {}
    }

    static class Plain {
        public void run() {}
    }
}
