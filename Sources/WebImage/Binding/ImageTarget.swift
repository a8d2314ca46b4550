/// Something that shows images — a view, a terminal cell grid, a texture slot (the UI-agnostic
/// part of SDWebImage's `UIView+WebCache`). ``ImageBinding`` drives it.
///
/// Calls arrive on whatever thread the load finished on; a target bound to a UI thread hops there
/// itself.
public protocol ImageTarget: AnyObject, Sendable {
    /// Shows `image` (`nil` clears). `transition` is set when the binding decided this change
    /// should animate: a loaded image from the network or an asynchronous disk read, or any
    /// image with ``WebImageOptions/forceTransition`` — never the placeholder.
    func setImage(_ image: Image?, transition: ImageTransition?)
    /// Shows `image` in the slot `operationKey` names: the load's
    /// ``WebImageContext/setImageOperationKey``, or ``ImageBinding/defaultOperationKey``. One
    /// target can so hold an image per state, as SD's `UIButton` does (`sd_setImageWithURL:forState:`,
    /// `sd_imageURLForState:` — here ``ImageBinding/currentURL(of:operationKey:)``) or a normal and
    /// a highlighted image (`sd_setHighlightedImageWithURL:`), each its own load. The default
    /// ignores the slot and calls ``setImage(_:transition:)``.
    func setImage(_ image: Image?, transition: ImageTransition?, operationKey: String)
    /// Shown while a load runs (SD's `sd_imageIndicator`); `nil` for none.
    var indicator: (any ImageIndicator)? { get }
    /// The transition this target wants for loaded images (SD's `sd_imageTransition`); `nil` for none.
    var transition: ImageTransition? { get }
}

extension ImageTarget {
    public func setImage(_ image: Image?, transition: ImageTransition?, operationKey: String) {
        setImage(image, transition: transition)
    }
    public var indicator: (any ImageIndicator)? { nil }
    public var transition: ImageTransition? { nil }
}

/// A target that plays animations with a player: SDWebImage's `SDAnimatedImageView`.
/// ``ImageBinding`` loads animations for it to decode on demand (``OnDemandAnimationCoder``,
/// unless the load names a coder of its own), shows the poster frame through ``ImageTarget/setImage(_:transition:)``,
/// then hands over a player. The target owns the player: it sets the loop count and handlers,
/// starts it, and stops it when its image changes.
public protocol AnimatedImageTarget: ImageTarget {
    /// Plays `player`'s animation (the poster frame is already shown).
    func play(_ player: AnimatedImagePlayer)
    /// Plays `player`'s animation in the slot `operationKey` names (see
    /// ``ImageTarget/setImage(_:transition:operationKey:)``). The default calls ``play(_:)``.
    func play(_ player: AnimatedImagePlayer, operationKey: String)
}

extension AnimatedImageTarget {
    public func play(_ player: AnimatedImagePlayer, operationKey: String) { play(player) }
}
