package io.wheeltimer.spring.annotated;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodClassKey;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringValueResolver;

/**
 * What the post-processors of {@code @WheelTimeout} and {@code @WheelTimeLimit} share: proxy the
 * beans with annotated methods, ahead of other advisors, and check every annotated method when its
 * bean is created, so that a mistake stops the application at startup; the checked form {@code M}
 * is kept per method and class. The timer of a method whose annotation names none is resolved once
 * every singleton exists (resolving it creates it), so that a mistake there stops startup too.
 */
@SuppressWarnings("serial")
abstract class AnnotatedMethodPostProcessor<A extends Annotation, M>
        extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements EmbeddedValueResolverAware, SmartInitializingSingleton {

    private final Class<A> annotationType;
    private final Map<MethodClassKey, M> checked = new ConcurrentHashMap<>();
    /** Resolves {@code ${...}} in attributes; null outside an application context. */
    StringValueResolver valueResolver;

    ConfigurableListableBeanFactory beanFactory;

    /** Timers chosen by type, of methods checked before every singleton existed; null after. */
    private List<AnnotatedTimer> unresolvedTimers = new ArrayList<>();

    AnnotatedMethodPostProcessor(Class<A> annotationType) {
        this.annotationType = annotationType;
        setBeforeExistingAdvisors(true);
    }

    /** Sets the interceptor of the annotated methods; called once, from the subclass's constructor. */
    final void advise(MethodInterceptor interceptor) {
        this.advisor =
                new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, annotationType, true), interceptor);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        if (!(beanFactory instanceof ConfigurableListableBeanFactory listable)) {
            throw new IllegalStateException("@" + annotationType.getSimpleName()
                    + " needs a ConfigurableListableBeanFactory, got " + beanFactory);
        }
        this.beanFactory = listable;
    }

    /**
     * Every singleton exists: resolves the timers chosen by type of the methods checked so far (a
     * method checked later resolves its own at once), after {@link #checkAfterSingletons}.
     */
    @Override
    public void afterSingletonsInstantiated() {
        checkAfterSingletons();
        List<AnnotatedTimer> timers;
        synchronized (this) {
            timers = unresolvedTimers;
            unresolvedTimers = null;
        }
        if (timers != null) {
            timers.forEach(AnnotatedTimer::resolve);
        }
    }

    /** What the subclass checks once every singleton exists, before the timers are resolved. */
    void checkAfterSingletons() {}

    /**
     * The timer of an annotated method: a named one is checked now, one chosen by type once every
     * singleton exists, or now if they do.
     *
     * @param name the annotation's {@code timer} attribute
     * @throws InvalidWheelAnnotationException naming the method, if the timer cannot be used
     */
    final AnnotatedTimer timer(String method, String name) {
        AnnotatedTimer timer = new AnnotatedTimer("@" + annotationType.getSimpleName(), method, name, beanFactory);
        if (timer.named()) {
            timer.checkName();
            return timer;
        }
        synchronized (this) {
            if (unresolvedTimers != null) {
                unresolvedTimers.add(timer);
                return timer;
            }
        }
        timer.resolve();
        return timer;
    }

    @Override
    public void setEmbeddedValueResolver(StringValueResolver resolver) {
        this.valueResolver = resolver;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        MethodIntrospector.selectMethods(targetClass, (MethodIntrospector.MetadataLookup<A>)
                        method -> AnnotatedElementUtils.findMergedAnnotation(method, annotationType))
                .keySet()
                .forEach(method -> checked(method, targetClass));
        return super.postProcessAfterInitialization(bean, beanName);
    }

    /**
     * The checked, resolved form of an annotated method, made once per method and class (an
     * inherited method is described as each bean's own class).
     */
    final M checked(Method method, Class<?> targetClass) {
        Class<?> userClass = ClassUtils.getUserClass(targetClass);
        Method specific = AopUtils.getMostSpecificMethod(method, userClass);
        return checked.computeIfAbsent(new MethodClassKey(specific, userClass), key -> check(specific, userClass));
    }

    private M check(Method method, Class<?> userClass) {
        String description = AnnotatedMethods.describe(method, userClass);
        A annotation = AnnotatedElementUtils.findMergedAnnotation(method, annotationType);
        if (annotation == null) {
            throw new IllegalStateException("No @" + annotationType.getSimpleName() + " on " + description);
        }
        return check(method, description, annotation);
    }

    /**
     * Checks an annotated method and resolves its attributes.
     *
     * @param description the method as {@link AnnotatedMethods#describe} names it
     * @throws InvalidWheelAnnotationException naming the method, if the annotation cannot apply to it
     */
    abstract M check(Method method, String description, A annotation);
}
